// Package prose formats the engine's sentences and errors with a small
// subset of fmt's verbs: %s, %d, %q, %v, %w and %.Nf, %0Nd.
//
// It exists for the browser. The engine runs as WebAssembly in every
// learner's tab, and package fmt (with the reflect package it needs) adds
// about a seventh to what each of them downloads (see docs/architecture.md,
// "What the browser module may carry"). The engine only ever formats strings, integers,
// values with a String or Error method, and a rare float, so a type switch
// does the job fmt does with reflection; a named integer type prints with
// %d through an Int64 method. Anything else prints as
// %!v(unsupported), which the engine's tests look for in every narration.
package prose

import (
	"strconv"
	"strings"
)

// F formats like fmt.Sprintf for the verbs this package knows.
//
// F and Fprintf are not inlined: each has hundreds of callers, and a copy
// of their bodies at each cost the browser module about 10 KB of brotli
// for no measurable speed (the formatting dominates the call).
//
//go:noinline
func F(format string, args ...any) string {
	var b strings.Builder
	write(&b, format, args)
	return b.String()
}

// Fprintf appends the formatted text to b.
//
//go:noinline
func Fprintf(b *strings.Builder, format string, args ...any) {
	write(b, format, args)
}

// Errorf returns an error with the formatted text. A %w argument is
// formatted like %v and wrapped, so errors.Is and errors.As see through it.
// Like F, it is not inlined.
//
//go:noinline
func Errorf(format string, args ...any) error {
	var wrapped []error
	var b strings.Builder
	n := write(&b, format, args)
	for _, i := range n {
		if err, ok := args[i].(error); ok {
			wrapped = append(wrapped, err)
		}
	}
	return &wrapError{msg: b.String(), errs: wrapped}
}

type wrapError struct {
	msg  string
	errs []error
}

func (e *wrapError) Error() string   { return e.msg }
func (e *wrapError) Unwrap() []error { return e.errs }

// write formats into b and returns the indexes of the %w arguments.
func write(b *strings.Builder, format string, args []any) []int {
	var wrapped []int
	next := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(format) {
			b.WriteString("%!(NOVERB)")
			break
		}
		if format[i] == '%' {
			b.WriteByte('%')
			continue
		}
		// Flags and precision this package knows: 0N (zero padding) and .N.
		zero, width, prec := false, 0, -1
		if format[i] == '0' {
			zero = true
			i++
		}
		for i < len(format) && format[i] >= '0' && format[i] <= '9' {
			width = width*10 + int(format[i]-'0')
			i++
		}
		if i < len(format) && format[i] == '.' {
			prec = 0
			i++
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				prec = prec*10 + int(format[i]-'0')
				i++
			}
		}
		if i >= len(format) {
			b.WriteString("%!(NOVERB)")
			break
		}
		verb := format[i]
		if next >= len(args) {
			b.WriteString("%!" + string(verb) + "(MISSING)")
			continue
		}
		arg := args[next]
		if verb == 'w' {
			wrapped = append(wrapped, next)
			verb = 'v'
		}
		next++
		s, ok := text(verb, arg, prec)
		if !ok {
			b.WriteString("%!" + string(verb) + "(unsupported)")
			continue
		}
		if pad := width - len(s); pad > 0 {
			fill := byte(' ')
			if zero {
				fill = '0'
			}
			if zero && strings.HasPrefix(s, "-") {
				b.WriteByte('-')
				s = s[1:]
			}
			for range pad { // not strings.Repeat, 4 KB of the browser module for this
				b.WriteByte(fill)
			}
		}
		b.WriteString(s)
	}
	if next < len(args) {
		b.WriteString("%!(EXTRA)")
	}
	return wrapped
}

// text renders one argument for one verb.
func text(verb byte, arg any, prec int) (string, bool) {
	switch verb {
	case 'd':
		if n, ok := integer(arg); ok {
			return strconv.FormatInt(n, 10), true
		}
		if u, ok := arg.(uint64); ok {
			return strconv.FormatUint(u, 10), true
		}
		// A named integer type is not known here without reflection: it
		// prints with %d if it says what it is worth, else convert it at the
		// call site.
		if v, ok := arg.(interface{ Int64() int64 }); ok {
			return strconv.FormatInt(v.Int64(), 10), true
		}
		return "", false
	case 'f':
		f, ok := arg.(float64)
		if !ok {
			return "", false
		}
		if prec < 0 {
			prec = 6
		}
		return strconv.FormatFloat(f, 'f', prec, 64), true
	case 'q':
		s, ok := str(arg)
		if !ok {
			return "", false
		}
		return Quote(s), true
	case 's', 'v':
		if s, ok := str(arg); ok {
			return s, true
		}
		if n, ok := integer(arg); ok {
			return strconv.FormatInt(n, 10), true
		}
		switch x := arg.(type) {
		case uint64:
			return strconv.FormatUint(x, 10), true
		case bool:
			return strconv.FormatBool(x), true
		case float64:
			return strconv.FormatFloat(x, 'g', -1, 64), true
		case []string:
			return "[" + strings.Join(x, " ") + "]", true
		case nil:
			return "<nil>", true
		}
	}
	return "", false
}

func str(arg any) (string, bool) {
	switch x := arg.(type) {
	case string:
		return x, true
	case error:
		return x.Error(), true
	case interface{ String() string }:
		return x.String(), true
	case []byte:
		return string(x), true
	}
	return "", false
}

func integer(arg any) (int64, bool) {
	switch x := arg.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	}
	return 0, false
}
