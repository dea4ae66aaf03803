package numfmt

import "testing"

func TestP(t *testing.T) {
	for p, want := range map[float64]string{0.62: "0.62", 1: "1", 0.05: "0.05", 0.0123: "0.012", 1e-4: "1e-4", 0.00025: "2.5e-4", 9.999e-5: "1e-4", 0: "0", -1: "0"} {
		if got := P(p); got != want {
			t.Errorf("P(%v) = %q, want %q", p, got, want)
		}
	}
}

func TestNumberSigned(t *testing.T) {
	for _, c := range []struct {
		x        float64
		decimals int
		number   string
		signed   string
	}{
		{0.1234, 3, "0.123", "+0.123"},
		{-0.1204, 3, "-0.120", "-0.120"},
		{-0.0001, 3, "0.000", "+0.000"}, // no negative zero
		{2, 0, "2", "+2"},
	} {
		if got := Number(c.x, c.decimals); got != c.number {
			t.Errorf("Number(%v, %d) = %q, want %q", c.x, c.decimals, got, c.number)
		}
		if got := Signed(c.x, c.decimals); got != c.signed {
			t.Errorf("Signed(%v, %d) = %q, want %q", c.x, c.decimals, got, c.signed)
		}
	}
}
