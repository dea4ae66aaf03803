package evaltest

import "github.com/lasagna-go/lasagna/engine"

func engineShardZero() engine.Shard { return engine.Shard{} }
