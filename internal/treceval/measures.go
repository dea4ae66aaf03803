package treceval

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/internal/suggest"
)

// trecMeasure is one trec_eval measure (or family of cutoff measures) in
// trec_eval's output order.
type trecMeasure struct {
	name        string
	implemented bool
	cut         bool // takes cutoff parameters: name.k1,k2,…
	fcut        bool // takes fractional parameters: name.0.1,0.5 (printed %3.2f)
	// pairs: takes rel_level=gain pairs (and p=persistence for rbp and
	// rbp_resid); values: takes a list of numbers. Either way the
	// parameters as written are appended to the printed name: ndcg_1=3,
	// set_F_0.5.
	pairs, values bool
	summaryOnly   bool // printed only in the "all" block (runid, num_q, gm_map)
	perQueryOnly  bool // printed only in query blocks (relstring)
	// format is the -R rel_info format the measure needs: "" for qrels,
	// "prefs" for prefs and qrels_prefs, "qrels_jg"; runid and num_q
	// (any) go with every format.
	format string
}

// anyFormat marks the measures every -R format computes.
const anyFormat = "any"

// trecMeasures lists trec_eval 10's measures in the order it prints them;
// lasagna implements those marked.
var trecMeasures = []trecMeasure{
	{name: "runid", implemented: true, summaryOnly: true, format: anyFormat},
	{name: "num_q", implemented: true, summaryOnly: true, format: anyFormat},
	{name: "num_ret", implemented: true},
	{name: "num_rel", implemented: true},
	{name: "num_rel_ret", implemented: true},
	{name: "map", implemented: true},
	{name: "gm_map", implemented: true, summaryOnly: true},
	{name: "Rprec", implemented: true},
	{name: "bpref", implemented: true},
	{name: "recip_rank", implemented: true},
	{name: "iprec_at_recall", implemented: true, fcut: true},
	{name: "P", implemented: true, cut: true},
	{name: "relstring", implemented: true, perQueryOnly: true},
	{name: "recall", implemented: true, cut: true},
	{name: "infAP", implemented: true},
	{name: "gm_bpref", implemented: true, summaryOnly: true},
	{name: "Rprec_mult", implemented: true, fcut: true},
	{name: "utility", implemented: true, values: true},
	{name: "11pt_avg", implemented: true, values: true},
	{name: "binG", implemented: true},
	{name: "G", implemented: true, pairs: true},
	{name: "dcg", implemented: true, pairs: true},
	{name: "ideal_dcg", implemented: true, pairs: true},
	{name: "ndcg", implemented: true, pairs: true},
	{name: "ndcg_rel", implemented: true, pairs: true},
	{name: "Rndcg", implemented: true, pairs: true},
	{name: "ndcg_cut", implemented: true, cut: true},
	{name: "map_cut", implemented: true, cut: true},
	{name: "relative_P", implemented: true, cut: true},
	{name: "success", implemented: true, cut: true},
	{name: "set_P", implemented: true},
	{name: "set_relative_P", implemented: true},
	{name: "set_recall", implemented: true},
	{name: "set_map", implemented: true},
	{name: "set_F", implemented: true, values: true},
	{name: "num_nonrel_judged_ret", implemented: true},
	{name: "prefs_num_prefs_poss", implemented: true, format: "prefs"},
	{name: "prefs_num_prefs_ful", implemented: true, format: "prefs"},
	{name: "prefs_num_prefs_ful_ret", implemented: true, format: "prefs"},
	{name: "prefs_simp", implemented: true, format: "prefs"},
	{name: "prefs_pair", implemented: true, format: "prefs"},
	{name: "prefs_avgjg", implemented: true, format: "prefs"},
	{name: "prefs_avgjg_Rnonrel", implemented: true, format: "prefs"},
	{name: "prefs_simp_ret", implemented: true, format: "prefs"},
	{name: "prefs_pair_ret", implemented: true, format: "prefs"},
	{name: "prefs_avgjg_ret", implemented: true, format: "prefs"},
	{name: "prefs_avgjg_Rnonrel_ret", implemented: true, format: "prefs"},
	{name: "prefs_simp_imp", implemented: true, format: "prefs"},
	{name: "prefs_pair_imp", implemented: true, format: "prefs"},
	{name: "prefs_avgjg_imp", implemented: true, format: "prefs"},
	{name: "map_avgjg", implemented: true, format: "qrels_jg"},
	{name: "P_avgjg", implemented: true, cut: true, format: "qrels_jg"},
	{name: "Rprec_mult_avgjg", implemented: true, fcut: true, format: "qrels_jg"},
	{name: "yaap", implemented: true},
	{name: "rbp", implemented: true, pairs: true},
	{name: "rbp_resid", implemented: true, pairs: true},
	{name: "unj", implemented: true, cut: true},
}

// trecNicknames are trec_eval's names for sets of measures.
var trecNicknames = map[string][]string{
	"official": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"},
	"all_trec": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
		"recall", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
		"map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
		"num_nonrel_judged_ret", "rbp", "rbp_resid", "unj"},
	"set": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall", "set_relative_P", "set_map", "set_F"},
	"all_prefs": {"runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
		"prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
		"prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp"},
	"prefs":    {"runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg"},
	"qrels_jg": {"runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"},
}

// trecNicknameList is the sets' names as error messages list them.
const trecNicknameList = "official, all_trec, set, all_prefs, prefs, qrels_jg"

// CheckFormat tells whether every selected measure can be computed from a
// rel_info file of format rel (trec_eval's -R: qrels, prefs, qrels_prefs
// or qrels_jg): the preference measures need prefs or qrels_prefs, the
// _avgjg ones qrels_jg, every other one qrels; runid and num_q go with
// any. trec_eval stops on the first query instead ("Can't calculate
// measure", status 4).
func (s *Selection) CheckFormat(rel string) error {
	want := rel
	switch rel {
	case "qrels":
		want = ""
	case "qrels_prefs":
		want = "prefs"
	}
	for _, m := range trecMeasures {
		if !s.on[m.name] || m.format == anyFormat || m.format == want {
			continue
		}
		switch m.format {
		case "":
			return fmt.Errorf("measure %s needs -R qrels (a qrels file); with -R %s, trec_eval computes only runid, num_q and %s: give -m %s", m.name, rel, formatMeasures(want), formatSet(want))
		case "prefs":
			return fmt.Errorf("measure %s is a preference measure: it needs -R prefs or -R qrels_prefs (the rel_info file is read as preferences), not -R %s", m.name, rel)
		default:
			return fmt.Errorf("measure %s averages over judgement groups: it needs -R qrels_jg, not -R %s", m.name, rel)
		}
	}
	return nil
}

// formatMeasures describes the measures of format f ("prefs", "qrels_jg").
func formatMeasures(f string) string {
	if f == "prefs" {
		return "the preference measures prefs_*"
	}
	return "map_avgjg, P_avgjg and Rprec_mult_avgjg"
}

// formatSet is the -m set of format f's measures.
func formatSet(f string) string {
	if f == "prefs" {
		return "prefs (or all_prefs)"
	}
	return "qrels_jg"
}

// Selection is what -m asked for: the measures to print and the cutoffs
// of the cutoff measures.
type Selection struct {
	on      map[string]bool
	cutoffs map[string][]int     // only for measures given with parameters
	fcuts   map[string][]float64 // the same for fractional parameters
	// relstringParam is relstring's -m parameter as written (it names the
	// measure, "relstring_20"); relstringLen the number of ranks it shows.
	relstringParam string
	relstringLen   int
	// params holds the parameters of the pairs and values measures as
	// written (their printed names carry them); gains, persistence and
	// values what they say.
	params      map[string]string
	gains       map[string][]metrics.GainPair
	persistence map[string]float64
	values      map[string][]float64
}

// printName is measure name as trec_eval prints it: with its parameters
// as written after an underscore when it was given some (utility_1,-1,0,0;
// ndcg_1=3,2=5), as meas_init.c's append_string does.
func (s *Selection) printName(name string) string {
	if p, ok := s.params[name]; ok {
		return name + "_" + p
	}
	return name
}

func findTrecMeasure(name string) (trecMeasure, bool) {
	for _, m := range trecMeasures {
		if m.name == name {
			return m, true
		}
	}
	return trecMeasure{}, false
}

func implementedTrecNames() []string {
	var names []string
	for _, m := range trecMeasures {
		if m.implemented {
			names = append(names, m.name)
		}
	}
	return names
}

// ParseMeasures interprets -m values as trec_eval does: a measure name,
// a nickname (official, all_trec, set), or name.params where params are
// comma-separated cutoffs, rel_level=gain pairs (and p=persistence for
// rbp and rbp_resid) or numbers (utility, 11pt_avg, set_F); the first
// parameters given for a measure win.
// No -m means "official".
func ParseMeasures(specs []string) (*Selection, error) {
	if len(specs) == 0 {
		specs = []string{"official"}
	}
	sel := &Selection{on: map[string]bool{}, cutoffs: map[string][]int{}, fcuts: map[string][]float64{},
		params: map[string]string{}, gains: map[string][]metrics.GainPair{}, persistence: map[string]float64{}, values: map[string][]float64{}}
	for _, spec := range specs {
		name, params, hasParams := strings.Cut(spec, ".")
		if hasParams && params == "" {
			return nil, fmt.Errorf("measure %q has an empty parameter list after '.'; write e.g. P.5,10", spec)
		}
		if list, ok := trecNicknames[name]; ok {
			if hasParams {
				return nil, fmt.Errorf("measure set %q takes no parameters", name)
			}
			for _, n := range list {
				sel.on[n] = true
			}
			continue
		}
		m, ok := findTrecMeasure(name)
		if te, isLasagna := lasagnaToTrec(spec); !ok && isLasagna {
			if strings.HasPrefix(spec, "mrr@") {
				return nil, fmt.Errorf("%q is lasagna's name; trec_eval's reciprocal rank has no cutoff: write -m %s", spec, te)
			}
			return nil, fmt.Errorf("%q is lasagna's name; did you mean trec_eval's %s? (write -m %s)", spec, te, te)
		}
		if !ok {
			return nil, fmt.Errorf("unknown trec_eval measure %q%s (lasagna implements %s; sets: %s)", name, didYouMean(name), strings.Join(implementedTrecNames(), ", "), trecNicknameList)
		}
		if !m.implemented {
			return nil, fmt.Errorf("trec_eval measure %q is not implemented by lasagna (it implements %s)", name, strings.Join(implementedTrecNames(), ", "))
		}
		sel.on[name] = true
		if !hasParams {
			continue
		}
		if name == "relstring" {
			if sel.relstringParam == "" {
				x, err := strconv.ParseFloat(params, 64)
				if err != nil || x < 0 || x > 1e6 {
					return nil, fmt.Errorf("measure relstring: parameter %q is not a number of ranks; write e.g. relstring.20", params)
				}
				sel.relstringParam, sel.relstringLen = params, int(x)
			}
			continue
		}
		if m.pairs || m.values {
			if _, done := sel.params[name]; done {
				continue // trec_eval uses the first parameters given
			}
			if err := sel.parseParams(m, params); err != nil {
				return nil, err
			}
			continue
		}
		if !m.cut && !m.fcut {
			return nil, fmt.Errorf("measure %q takes no parameters", spec)
		}
		_, done := sel.cutoffs[name]
		_, fdone := sel.fcuts[name]
		if done || fdone {
			continue // trec_eval uses the first parameters given
		}
		if m.fcut {
			cuts, err := parseFloatCutoffs(name, params)
			if err != nil {
				return nil, err
			}
			sel.fcuts[name] = cuts
			continue
		}
		cuts, err := parseCutoffs(name, params)
		if err != nil {
			return nil, err
		}
		sel.cutoffs[name] = cuts
	}
	// dcg, ideal_dcg and ndcg share one set of parameters in trec_eval
	// (m_ndcg.c), which frees it once per measure: with parameters and
	// two of them, it crashes (double free) after computing them.
	var group []string
	param := false
	for _, n := range []string{"dcg", "ideal_dcg", "ndcg"} {
		if sel.on[n] {
			group = append(group, n)
			_, p := sel.params[n]
			param = param || p
		}
	}
	if param && len(group) > 1 {
		return nil, fmt.Errorf("measures %s: trec_eval shares one set of gain parameters among dcg, ideal_dcg and ndcg and crashes when two of them are selected with parameters; give one of them (e.g. -m ndcg.1=0.5,2=2 alone)", strings.Join(group, ", "))
	}
	return sel, nil
}

// parseParams reads the parameters of a pairs or values measure m as
// trec_eval does (meas_init.c's get_param_pairs, get_double_params) and
// keeps them. trec_eval reads numbers with atof and levels with atol,
// which take anything; a parameter that is not a number, or a gain level
// that is not an integer, is an error here.
func (s *Selection) parseParams(m trecMeasure, params string) error {
	name := m.name
	num := func(p string) (float64, bool) {
		x, err := strconv.ParseFloat(p, 64)
		return x, err == nil && !math.IsInf(x, 0) && !math.IsNaN(x) && !strings.Contains(p, "_")
	}
	if m.values {
		example := map[string]string{"utility": "utility.1,-1,0,0", "11pt_avg": "11pt_avg.0.2,0.5,0.8", "set_F": "set_F.0.5"}[name]
		var vs []float64
		for p := range strings.SplitSeq(params, ",") {
			x, ok := num(p)
			if !ok {
				return fmt.Errorf("measure %s: parameter %q is not a number; write e.g. %s", name, p, example)
			}
			vs = append(vs, x)
		}
		if name == "utility" && len(vs) != 4 {
			return fmt.Errorf("measure utility takes 4 coefficients (retrieved relevant, retrieved non-relevant, relevant not retrieved, non-relevant not retrieved), not %d in %q; write e.g. %s (trec_eval stops with \"improper number of coefficients\")", len(vs), params, example)
		}
		s.params[name], s.values[name] = params, vs
		return nil
	}
	example := name + ".1=0.5,2=2,3=4"
	rbp := name == "rbp" || name == "rbp_resid"
	if rbp {
		example = name + ".p=0.8"
	}
	var gains []metrics.GainPair
	p, hasP := 0.0, false
	for pair := range strings.SplitSeq(params, ",") {
		level, value, ok := strings.Cut(pair, "=")
		if !ok || strings.Contains(value, "=") {
			return fmt.Errorf("measure %s: parameter %q is not rel_level=gain (trec_eval: malformed pair parameters); write e.g. %s", name, pair, example)
		}
		x, ok := num(value)
		if !ok {
			return fmt.Errorf("measure %s: %q in %q is not a number; write e.g. %s", name, value, pair, example)
		}
		if rbp && level == "p" {
			p, hasP = x, true // the last p given wins, as in m_rbp.c
			continue
		}
		digits := strings.TrimLeft(level, "+-")
		if len(level)-len(digits) > 1 || digits == "" || strings.Trim(digits, "0123456789") != "" {
			what := "a relevance level (an integer)"
			if rbp {
				what += " or p"
			}
			return fmt.Errorf("measure %s: %q in %q is not %s (trec_eval ignores it); write e.g. %s", name, level, pair, what, example)
		}
		l, err := strconv.ParseInt(level, 10, 64)
		if err != nil { // out of range: atol saturates
			l = math.MaxInt64
			if level[0] == '-' {
				l = math.MinInt64
			}
		}
		gains = append(gains, metrics.GainPair{Level: l, Gain: x})
	}
	s.params[name] = params
	if gains == nil {
		gains = []metrics.GainPair{} // given, even if only p
	}
	s.gains[name] = gains
	if hasP {
		s.persistence[name] = p
	}
	return nil
}

// parseCutoffs parses "5,10,3" like trec_eval: integers (a fractional part
// is dropped, as strtol does), sorted ascending, positive and distinct.
func parseCutoffs(name, params string) ([]int, error) {
	var cuts []int
	for p := range strings.SplitSeq(params, ",") {
		digits := p
		if i := strings.IndexByte(p, '.'); i > 0 && strings.Trim(p[i+1:], "0123456789") == "" {
			digits = p[:i]
		}
		k, err := strconv.Atoi(digits)
		if err != nil {
			return nil, fmt.Errorf("measure %s: cutoff %q is not an integer; write e.g. %s.5,10,100", name, p, name)
		}
		if k <= 0 {
			return nil, fmt.Errorf("measure %s: cutoff %d is not positive", name, k)
		}
		cuts = append(cuts, k)
	}
	slices.Sort(cuts)
	for i := 1; i < len(cuts); i++ {
		if cuts[i] == cuts[i-1] {
			return nil, fmt.Errorf("measure %s: cutoff %d is given twice", name, cuts[i])
		}
	}
	return cuts, nil
}

// parseFloatCutoffs parses "0.1,.5" like trec_eval: numbers, sorted
// ascending and distinct.
func parseFloatCutoffs(name, params string) ([]float64, error) {
	var cuts []float64
	for p := range strings.SplitSeq(params, ",") {
		x, err := strconv.ParseFloat(p, 64)
		if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("measure %s: parameter %q is not a number >= 0; write e.g. %s.0.1,0.5", name, p, name)
		}
		cuts = append(cuts, x)
	}
	slices.Sort(cuts)
	for i := 1; i < len(cuts); i++ {
		if cuts[i] == cuts[i-1] {
			return nil, fmt.Errorf("measure %s: parameter %v is given twice", name, cuts[i])
		}
	}
	return cuts, nil
}

// lasagnaToTrec returns the trec_eval -m spec of a lasagna retrieval
// metric name (the table of the README's metrics section), e.g. ndcg@10 →
// ndcg_cut.10; mrr@k maps to recip_rank, which has no cutoff.
func lasagnaToTrec(name string) (string, bool) {
	family, k, cut := strings.Cut(name, "@")
	if !cut {
		te, ok := map[string]string{"mrr": "recip_rank", "r_precision": "Rprec"}[name]
		return te, ok
	}
	if n, err := strconv.Atoi(k); err != nil || n < 1 {
		return "", false
	}
	te, ok := map[string]string{"ndcg": "ndcg_cut.", "recall": "recall.", "precision": "P.", "map": "map_cut.", "hit": "success."}[family]
	if ok {
		return te + k, true
	}
	if family == "mrr" {
		return "recip_rank", true // trec_eval's reciprocal rank has no cutoff
	}
	return "", false
}

func didYouMean(name string) string {
	names := make([]string, len(trecMeasures))
	for i, m := range trecMeasures {
		names[i] = m.name
	}
	return suggest.Hint(name, names)
}

// Options turns the selection into metrics options: selected cutoff
// measures get their -m parameters or trec_eval's defaults.
func (s *Selection) Options(level int) metrics.TrecOptions {
	d := metrics.DefaultTrecOptions()
	pick := func(name string, def []int) []int {
		if !s.on[name] {
			return nil
		}
		if c, ok := s.cutoffs[name]; ok {
			return c
		}
		return def
	}
	relstringLen := 0
	if s.on["relstring"] {
		relstringLen = d.RelString
		if s.relstringParam != "" {
			relstringLen = s.relstringLen
		}
	}
	fpick := func(name string, def []float64) []float64 {
		if !s.on[name] {
			return nil
		}
		if c, ok := s.fcuts[name]; ok {
			return c
		}
		return def
	}
	// Measures nobody prints are not computed.
	var omit metrics.TrecOmit
	if !s.on["binG"] && !s.on["G"] && !s.on["ndcg_rel"] && !s.on["Rndcg"] {
		omit |= metrics.OmitGain
	}
	if !s.on["infAP"] && !s.on["rbp"] && !s.on["rbp_resid"] {
		omit |= metrics.OmitInfAPRBP
	}
	if !s.on["11pt_avg"] {
		omit |= metrics.Omit11pt
	}
	var pr metrics.TrecParams
	ptr := func(name string, m map[string]float64) *float64 {
		if x, ok := m[name]; ok {
			return &x
		}
		return nil
	}
	// The parameters of the measures selected; ndcg's gains are dcg's and
	// ideal_dcg's too (m_ndcg.c), and only one of the three has some.
	for _, n := range []string{"dcg", "ideal_dcg", "ndcg"} {
		if g := s.gains[n]; g != nil && s.on[n] {
			pr.NDCGGains = g
		}
	}
	if s.on["ndcg_rel"] {
		pr.NDCGRelGains = s.gains["ndcg_rel"]
	}
	if s.on["Rndcg"] {
		pr.RNDCGGains = s.gains["Rndcg"]
	}
	if s.on["G"] {
		pr.GGains = s.gains["G"]
	}
	if s.on["rbp"] {
		pr.RBPGains, pr.RBPP = s.gains["rbp"], ptr("rbp", s.persistence)
	}
	if _, ok := s.params["rbp_resid"]; ok && s.on["rbp_resid"] {
		p := 0.9
		if x, ok := s.persistence["rbp_resid"]; ok {
			p = x
		}
		pr.RBPResidP = &p
	}
	if s.on["utility"] {
		pr.Utility = s.values["utility"]
	}
	if s.on["11pt_avg"] {
		pr.Recall11pt = s.values["11pt_avg"]
	}
	if v := s.values["set_F"]; v != nil && s.on["set_F"] {
		pr.SetFBeta = &v[0]
	}
	return metrics.TrecOptions{
		Params:        pr,
		Omit:          omit,
		RelLevel:      level,
		P:             pick("P", d.P),
		Recall:        pick("recall", d.Recall),
		NDCGCut:       pick("ndcg_cut", d.NDCGCut),
		MAPCut:        pick("map_cut", d.MAPCut),
		Success:       pick("success", d.Success),
		RelativeP:     pick("relative_P", d.RelativeP),
		Unj:           pick("unj", d.Unj),
		IPrecAtRecall: fpick("iprec_at_recall", d.IPrecAtRecall),
		RPrecMult:     fpick("Rprec_mult", d.RPrecMult),
		RelString:     relstringLen,
	}
}
