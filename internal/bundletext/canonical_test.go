package bundletext

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// slowCanonical is what CanonicalHash did for every row before the fast
// path: jsontext's canonical form of the whole value.
func slowCanonical(v []byte) ([]byte, error) {
	jv := jsontext.Value(bytes.Clone(v))
	err := jv.Canonicalize()
	return jv, err
}

// checkFast fails when the fast path writes anything but jsontext's form:
// where it reports done, its bytes must be jsontext's, and it must not
// report done on a text jsontext refuses.
func checkFast(t *testing.T, c *canonicalizer, in []byte) (done bool) {
	t.Helper()
	want, werr := slowCanonical(in)
	got, ok := c.appendCanonical([]byte("prefix"), in)
	if !ok {
		return false
	}
	if werr != nil {
		t.Errorf("fast path accepted %q, which jsontext refuses: %v", in, werr)
		return true
	}
	if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[len("prefix"):], want) {
		t.Errorf("fast path of %q:\n got %q\nwant %q", in, got[min(len(got), len("prefix")):], want)
	}
	return true
}

// TestFastCanonicalIsJSONText holds the rows' fast canonical path to
// jsontext's Canonicalize on texts that are not canonical: whitespace,
// members out of order, escapes, non-ASCII text, numbers in every form
// (1.0, 1e2, -0, 0.1e1, 1E400, 16 digits and more, small and large
// magnitudes), duplicate names and invalid JSON.
func TestFastCanonicalIsJSONText(t *testing.T) {
	var c canonicalizer
	inputs := []string{
		`{"query_id":"q1","scores":{"ndcg@10":1,"mrr":0.5},"_retrieved_ids":["a","b"],"_retrieved":[{"id":"a","score":12.9640255,"rank":1}]}`,
		" {\n  \"b\" :\t1 ,\r\n \"a\" : [ 1 , 2 ,3 ] , \"c\":{ } ,\"d\":[ ] } \n",
		`{"a":1.0,"b":1e2,"c":-0,"d":-0.0,"e":0.1e1,"f":1E400,"g":100,"h":1.5E-7,"i":0.000001,"j":0.0000001}`,
		`[0,-0,0.0,1,-1,10,1.5,-1.25,123456789012345,1234567890123456,12345678901234567890,1e21,1e20,100000000000000000000,0.30000000000000004,0.1,0.7009007438251772,5e-324,1.7976931348623157e308,2.5e-5,0.00001,-0.000001]`,
		`[00,01,-,1.,.5,1e,1e+,+1]`, `[1e+2,1E-2,1.0e0]`,
		`{"s":"\u0041\n\t\"\\\/\u00e9\ud83d\ude00\u2028\u007f\u0000","t":"é😀","u":"\u20ac"}`,
		`{"\u0061":1,"a":2}`, `{"é":1,"e":2}`, `{"\ud83d\ude00":1,"\ufb33":2}`,
		`{"a":1,"a":2}`, `{"b":1,"a":2,"b":3}`, `{"a":{"x":1,"x":2}}`,
		`{"a":1,}`, `{"a" 1}`, `[1,]`, `[1 2]`, `{"a":tru}`, `{"a":nul}`, `{"a":truex}`, `{"a":1} x`, `{"a":"\x"}`, "{\"a\":\"\x01\"}", "[\"\xff\"]",
		`{"a":"unterminated}`, `{"a":[1,2}`, `[true,false,null]`, `"x"`, `1.50`, ` 7 `, `{}`, `[]`, ``, ` `,
		`{"z":{"b":[{"d":1,"c":2}],"a":null},"y":[{"q":"x","p":-1.0}]}`,
		"[\"a\x7fb\", \"a/b<>&'~\", \" \"]", `{"B":1,"a":2,"_":3,"A":4,"~":5,"":6,"aa":7}`,
	}
	deep := bytes.Repeat([]byte("["), 100)
	inputs = append(inputs, string(deep)+string(bytes.Repeat([]byte("]"), 100)))
	var dir string
	goldens, _ := filepath.Glob(filepath.Join("..", "..", "results", "testdata", "golden", "*.json"))
	for _, g := range goldens {
		raw, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(raw))
		text, err := Split(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range text.Rows {
			inputs = append(inputs, string(r.Text))
		}
		dir = g
	}
	if dir == "" {
		t.Fatal("no golden bundles")
	}
	done := 0
	for _, in := range inputs {
		if checkFast(t, &c, []byte(in)) {
			done++
		}
	}
	if done < len(inputs)/2 {
		t.Errorf("the fast path handled only %d of %d texts", done, len(inputs))
	}
}

// TestFastCanonicalNumbers compares the fast path with jsontext on many
// numbers in the forms a bundle holds and in others: float32 and float64
// shortest texts, fixed decimals, exponents, trailing zeros.
func TestFastCanonicalNumbers(t *testing.T) {
	var c canonicalizer
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		var f float64
		switch r.IntN(4) {
		case 0:
			f = r.Float64()
		case 1:
			f = math.Float64frombits(r.Uint64())
		case 2:
			f = float64(r.IntN(2000)) / float64(1+r.IntN(1000))
		default:
			f = r.NormFloat64() * math.Pow(10, float64(r.IntN(50)-25))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		var s string
		switch r.IntN(6) {
		case 0:
			s = strconv.FormatFloat(f, 'g', -1, 64)
		case 1:
			s = strconv.FormatFloat(float64(float32(f)), 'g', -1, 32)
		case 2:
			s = strconv.FormatFloat(f, 'f', r.IntN(20), 64)
		case 3:
			s = strconv.FormatFloat(f, 'e', r.IntN(18), 64)
		case 4:
			s = strconv.FormatFloat(float64(float32(f)), 'f', -1, 32)
		default:
			s = strconv.FormatFloat(f, 'f', -1, 64)
		}
		checkFast(t, &c, []byte(s))
		checkFast(t, &c, []byte(fmt.Sprintf(`{"b":%s,"a":[%s]}`, s, s)))
		if t.Failed() {
			return
		}
	}
}

// FuzzFastCanonical checks the fast path against jsontext on any text.
func FuzzFastCanonical(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1e21,-0,0.1,"\u0000\u007f\u2028"]}`, `{"a":1.0, "a ":2}`, `[1E400]`, `"x"`, `{"id":"p1","score":1.5,"rank":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c canonicalizer
		checkFast(t, &c, data)
	})
}
