package hf

import "time"

// SetTimings shortens the download's pauses and limits for a test and
// returns the function restoring them.
func SetTimings(pause, stall time.Duration, retries int, maxInfo int64) (restore func()) {
	p, s, r, m := retryPause, stallTimeout, maxRetries, maxInfoBytes
	retryPause, stallTimeout, maxRetries, maxInfoBytes = pause, stall, retries, maxInfo
	return func() { retryPause, stallTimeout, maxRetries, maxInfoBytes = p, s, r, m }
}
