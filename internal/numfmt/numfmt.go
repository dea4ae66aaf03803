// Package numfmt formats the numbers of reports and verdict messages the
// same way everywhere: package reporters exports these functions (as
// FormatNumber, FormatSigned, FormatP) for presentation, and the packages
// that may not import reporters (results, engine, evaltest) call them here.
package numfmt

import (
	"fmt"
	"strconv"
	"strings"
)

// Number formats x with the given number of decimals, without a negative
// zero ("-0.000" is written "0.000").
func Number(x float64, decimals int) string {
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// Signed formats x with an explicit sign (+0.004, -0.120).
func Signed(x float64, decimals int) string {
	s := Number(x, decimals)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// P formats a p-value: two significant digits from 0.001 up ("0.62",
// "0.012"), else a power of ten ("1e-4", "2.5e-6"); 0 and below are "0".
func P(p float64) string {
	switch {
	case p >= 0.001:
		return strconv.FormatFloat(p, 'g', 2, 64)
	case p <= 0:
		return "0"
	}
	s := strconv.FormatFloat(p, 'e', 1, 64) // 1.0e-04
	mant, exp, _ := strings.Cut(s, "e")
	mant = strings.TrimSuffix(strings.TrimSuffix(mant, "0"), ".")
	e, _ := strconv.Atoi(exp)
	return fmt.Sprintf("%se%d", mant, e)
}
