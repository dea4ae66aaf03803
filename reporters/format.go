package reporters

import "github.com/lasagna-go/lasagna/internal/numfmt"

// FormatNumber formats x with the given number of decimals, without a
// negative zero ("-0.000" is written "0.000"). The tables of this package
// and of the lasagna command use it.
func FormatNumber(x float64, decimals int) string { return numfmt.Number(x, decimals) }

// FormatSigned formats x with an explicit sign (+0.004, -0.120), as
// differences between arms are written.
func FormatSigned(x float64, decimals int) string { return numfmt.Signed(x, decimals) }

// FormatP formats a p-value: two significant digits from 0.001 up ("0.62",
// "0.012"), else a power of ten ("1e-4", "2.5e-6"); 0 and below are "0".
func FormatP(p float64) string { return numfmt.P(p) }
