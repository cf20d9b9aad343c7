module github.com/pcpkit/pcpkit

go 1.25

require (
	github.com/google/go-cmp v0.7.0
	github.com/klauspost/compress v1.20.3
	github.com/ulikunitz/xz v0.5.17
	pgregory.net/rapid v1.3.0
)
