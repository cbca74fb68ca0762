//go:build !amd64

package vecdot

func dots(q, rows, out []float32) { dotsGeneric(q, rows, out) }

func dotsInt8(q []float32, rows []int8, out []float32) { dotsInt8Generic(q, rows, out) }
