package hf

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// msmarcoConfigs are the configs of microsoft/ms_marco.
var msmarcoConfigs = []string{"v1.1", "v2.1"}

// onlyConfig returns the MS MARCO config folder root holds when it holds
// one.
func onlyConfig(root string) (string, error) {
	var found []string
	for _, c := range msmarcoConfigs {
		if isDir(filepath.Join(root, c)) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("%s has no v1.1 or v2.1 folder; give --config v1.1 or v2.1 (the config of the parquet files in it)", root)
	}
	return "", fmt.Errorf("%s holds the configs v1.1 and v2.1; choose one with --config", root)
}

// configsIn returns the MS MARCO configs whose folder holds a file of
// names (slash-separated paths), in order.
func configsIn(names []string) []string {
	var found []string
	for _, c := range msmarcoConfigs {
		for _, n := range names {
			if strings.HasPrefix(n, c+"/") {
				found = append(found, c)
				break
			}
		}
	}
	return found
}

// parquetFiles returns the parquet files of dataset's config/split under
// root, in name order (see matchParquet).
func parquetFiles(root, dataset, config, split string) ([]string, error) {
	all, err := listFiles(root)
	if err != nil {
		return nil, err
	}
	rel, err := matchParquet(all, dataset, config, split, root)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rel))
	for i, p := range rel {
		out[i] = filepath.Join(root, filepath.FromSlash(p))
	}
	return out, nil
}

// matchParquet returns the parquet files of dataset's config/split among all
// (sorted slash-separated paths): <config>/<split>-*.parquet (the Hub's
// layout), <config>/<split>/*.parquet or <config>/<split>.parquet, or the
// same without the config folder (a plain folder of one config's files).
// where names the folder or repository in errors.
func matchParquet(all []string, dataset, config, split, where string) ([]string, error) {
	for _, prefix := range []string{config + "/", ""} {
		var out []string
		for _, p := range all {
			rest, ok := strings.CutPrefix(p, prefix)
			if !ok || !strings.HasSuffix(rest, ".parquet") {
				continue
			}
			if strings.HasPrefix(rest, split+"-") && !strings.Contains(rest, "/") ||
				rest == split+".parquet" ||
				path.Dir(rest) == split {
				out = append(out, p)
			}
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	var splits []string
	seen := map[string]bool{}
	for _, p := range all {
		if !strings.HasSuffix(p, ".parquet") {
			continue
		}
		s := strings.TrimSuffix(path.Base(p), ".parquet")
		s, _, _ = strings.Cut(s, "-")
		if k := path.Join(path.Dir(p), s); !seen[k] {
			seen[k] = true
			splits = append(splits, k)
		}
	}
	if len(splits) == 0 {
		return nil, fmt.Errorf("%s holds no parquet files; give the folder of %s (config %s)", where, dataset, config)
	}
	return nil, fmt.Errorf("%s has no parquet files for config %s, split %s (%s-*.parquet); it has %s", where, config, split, path.Join(config, split), strings.Join(splits, ", "))
}

// rowError is a problem in a source row.
func rowError(file string, row int, column, format string, args ...any) error {
	return fmt.Errorf("%s: row %d: %s: %s", file, row, column, fmt.Sprintf(format, args...))
}
