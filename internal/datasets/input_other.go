//go:build !unix

package datasets

// openNonblock is 0 where there is no O_NONBLOCK; OSFS.Open still refuses
// anything but a regular file or a folder once it is open.
const openNonblock = 0
