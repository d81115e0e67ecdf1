package scenario

// OddSpace is oddSpace, for the tests.
var OddSpace = oddSpace
