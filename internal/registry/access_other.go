//go:build !unix

package registry

// dirWritable reports whether this process may create files in dir;
// outside Unix a folder's permissions are left to SQLite to report.
func dirWritable(string) bool { return true }
