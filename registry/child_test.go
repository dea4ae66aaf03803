package registry_test

const childEnv = "LASAGNA_REGISTRY_TEST_CHILD"

func childMain() int { return 0 }
