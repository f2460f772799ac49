module github.com/skill-conform/adapters/golang

go 1.23.0

// The pinned release. Neither this file nor a go.sum is used as is: setup.sh copies the module
// to adapters/golang/.cache/build-<version>/, re-pins (`go mod edit -require`) or replaces
// (`go mod edit -replace`) toolnexus there, lets `go mod tidy` write go.sum, and builds.
require github.com/muthuishere/toolnexus/golang v0.20.0
