package ginkgo_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestFAQ(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "FAQ retrieval")
}
