package hwm_test

// world is a source table, a target and a pipeline, for the tests to add
// transactions and runs to (engine's build_test.go has the same).
const world = `scenario test/build "Build errors"
knob mark = timestamp | lsn
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=$mark
`
