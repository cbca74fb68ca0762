// Package vecdot computes the dot products of one vector with many, the inner loop of vector
// search: with float32 rows, and with int8 rows for a scan that reads a quarter of the memory.
// On amd64 processors with AVX2 and FMA it runs in assembly, elsewhere in Go.
package vecdot

// Align is the row length, in values, that the assembly needs a multiple of; other lengths take
// the Go path.
const Align = 8

// Dots sets out[i] to the dot product of q with the i-th row of rows, which holds len(out) rows
// of len(q) values each, one after the other.
func Dots(q, rows, out []float32) {
	if check(len(q), len(rows), out) {
		dots(q, rows, out)
	}
}

// DotsInt8 is [Dots] for rows of int8 values, each taken as a float32.
func DotsInt8(q []float32, rows []int8, out []float32) {
	if check(len(q), len(rows), out) {
		dotsInt8(q, rows, out)
	}
}

// check reports whether there is work for the kernels, which need at least one row of at least
// one value. It panics if rows is too short, as an out-of-range index would.
func check(dim, rows int, out []float32) bool {
	if len(out) == 0 {
		return false
	}
	if rows < dim*len(out) {
		panic("vecdot: rows shorter than len(q)*len(out)")
	}
	if dim == 0 {
		clear(out)
		return false
	}
	return true
}

func dotsGeneric(q, rows, out []float32) {
	dim := len(q)
	for i := range out {
		row := rows[i*dim : (i+1)*dim : (i+1)*dim]
		var s0, s1, s2, s3 float32
		j := 0
		for ; j+4 <= dim; j += 4 {
			s0 += q[j] * row[j]
			s1 += q[j+1] * row[j+1]
			s2 += q[j+2] * row[j+2]
			s3 += q[j+3] * row[j+3]
		}
		for ; j < dim; j++ {
			s0 += q[j] * row[j]
		}
		out[i] = s0 + s1 + s2 + s3
	}
}

func dotsInt8Generic(q []float32, rows []int8, out []float32) {
	dim := len(q)
	for i := range out {
		row := rows[i*dim : (i+1)*dim : (i+1)*dim]
		var s0, s1, s2, s3 float32
		j := 0
		for ; j+4 <= dim; j += 4 {
			s0 += q[j] * float32(row[j])
			s1 += q[j+1] * float32(row[j+1])
			s2 += q[j+2] * float32(row[j+2])
			s3 += q[j+3] * float32(row[j+3])
		}
		for ; j < dim; j++ {
			s0 += q[j] * float32(row[j])
		}
		out[i] = s0 + s1 + s2 + s3
	}
}
