package hf

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// onlyConfig returns the MS MARCO config folder root holds when it holds
// one.
func onlyConfig(root string) (string, error) {
	var found []string
	for _, c := range []string{"v1.1", "v2.1"} {
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

// msmarcoFiles returns the parquet files of config/split under root, in
// name order: <config>/<split>-*.parquet (the Hub's layout),
// <config>/<split>/*.parquet or <config>/<split>.parquet, or the same
// without the config folder (a plain folder of one config's files).
func msmarcoFiles(root, config, split string) ([]string, error) {
	all, err := listFiles(root)
	if err != nil {
		return nil, err
	}
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
				out = append(out, filepath.Join(root, filepath.FromSlash(p)))
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
		return nil, fmt.Errorf("%s holds no parquet files; give the folder of %s (config %s)", root, MSMARCO, config)
	}
	return nil, fmt.Errorf("%s has no parquet files for config %s, split %s (%s-*.parquet); it has %s", root, config, split, path.Join(config, split), strings.Join(splits, ", "))
}
