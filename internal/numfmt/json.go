package numfmt

import (
	"math"
	"strconv"
)

// AppendJSON appends f as encoding/json writes a float64, which is
// ECMAScript's Number.prototype.toString (RFC 8785's number form, except
// that RFC 8785 writes -0 as 0), and reports false, appending nothing,
// for NaN and the infinities, which JSON cannot hold.
func AppendJSON(dst []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}
