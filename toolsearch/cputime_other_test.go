//go:build !linux

package toolsearch

func threadCPU() (int64, bool) { return 0, false }

func processCPU() (int64, bool) { return 0, false }
