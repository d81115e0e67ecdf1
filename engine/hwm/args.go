package hwm

import (
	"github.com/tidemark/tidemark/engine/scenario"
)

func errorf(pos scenario.Pos, format string, v ...any) error {
	return scenario.Errorf(pos, format, v...)
}
