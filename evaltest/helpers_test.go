package evaltest

import "github.com/lasagna-go/lasagna/internal/engine"

func engineShardZero() engine.Shard { return engine.Shard{} }
