package vecdot

import "golang.org/x/sys/cpu"

var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dotsAVX2(q, rows *float32, n, dim int, out *float32)

func dots(q, rows, out []float32) {
	if useAVX2 && len(q)%8 == 0 {
		dotsAVX2(&q[0], &rows[0], len(out), len(q), &out[0])
		return
	}
	dotsGeneric(q, rows, out)
}

//go:noescape
func dotsInt8AVX2(q *float32, rows *int8, n, dim int, out *float32)

func dotsInt8(q []float32, rows []int8, out []float32) {
	if useAVX2 && len(q)%8 == 0 {
		dotsInt8AVX2(&q[0], &rows[0], len(out), len(q), &out[0])
		return
	}
	dotsInt8Generic(q, rows, out)
}
