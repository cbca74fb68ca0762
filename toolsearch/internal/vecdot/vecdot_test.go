package vecdot

import (
	"math"
	"math/rand/v2"
	"testing"
)

// want computes the dot products in float64, the reference the kernels are held to.
func want(q []float32, row func(j int) float64) float64 {
	var s float64
	for j := range q {
		s += float64(q[j]) * row(j)
	}
	return s
}

func TestDots(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, dim := range []int{1, 3, 7, 8, 16, 24, 31, 32, 40, 64, 96, 128, 136, 512, 768, 1536} {
		for _, n := range []int{0, 1, 2, 5} {
			q := make([]float32, dim)
			rows := make([]float32, dim*n)
			codes := make([]int8, dim*n)
			for i := range q {
				q[i] = r.Float32()*2 - 1
			}
			for i := range rows {
				rows[i] = r.Float32()*2 - 1
				codes[i] = int8(r.IntN(256) - 128)
			}
			out := make([]float32, n)
			out8 := make([]float32, n)
			Dots(q, rows, out)
			DotsInt8(q, codes, out8)
			// Float32 sums of dim terms of magnitude ≤ 1 (≤ 128 for int8) are within dim·2⁻²³ of
			// the exact sum, relative to the sum of the terms' magnitudes.
			tol := float64(dim) * 0x1p-23
			for i := range n {
				w := want(q, func(j int) float64 { return float64(rows[i*dim+j]) })
				if math.Abs(float64(out[i])-w) > tol*float64(dim) {
					t.Errorf("float32 dim %d row %d: %v, want %v", dim, i, out[i], w)
				}
				w8 := want(q, func(j int) float64 { return float64(codes[i*dim+j]) })
				if math.Abs(float64(out8[i])-w8) > tol*128*float64(dim) {
					t.Errorf("int8 dim %d row %d: %v, want %v", dim, i, out8[i], w8)
				}
			}
		}
	}
}

// TestDotsAgreeWithGo checks the assembly against the Go kernels on values whose products and
// sums are exact in float32, where any order of addition gives the same result.
func TestDotsAgreeWithGo(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, dim := range []int{8, 16, 24, 32, 40, 56, 64, 72, 96, 104, 128, 512, 520, 1024} {
		const n = 7
		q := make([]float32, dim)
		rows := make([]float32, dim*n)
		codes := make([]int8, dim*n)
		for i := range q {
			q[i] = float32(r.IntN(17) - 8)
		}
		for i := range rows {
			rows[i] = float32(r.IntN(17) - 8)
			codes[i] = int8(r.IntN(256) - 128)
		}
		got, ref := make([]float32, n), make([]float32, n)
		Dots(q, rows, got)
		dotsGeneric(q, rows, ref)
		for i := range n {
			if got[i] != ref[i] {
				t.Errorf("float32 dim %d row %d: %v, Go gives %v", dim, i, got[i], ref[i])
			}
		}
		DotsInt8(q, codes, got)
		dotsInt8Generic(q, codes, ref)
		for i := range n {
			if got[i] != ref[i] {
				t.Errorf("int8 dim %d row %d: %v, Go gives %v", dim, i, got[i], ref[i])
			}
		}
	}
}

func TestDotsShortRowsPanic(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for rows shorter than the output needs")
		}
	}()
	Dots(make([]float32, 8), make([]float32, 15), make([]float32, 2))
}

func TestDotsEmptyVectors(t *testing.T) {
	out := []float32{1, 2}
	Dots(nil, nil, out)
	if out[0] != 0 || out[1] != 0 {
		t.Errorf("dot products of empty vectors: %v", out)
	}
}

// BenchmarkDots scans 10,000 rows of 512 values, the vector index's search at 10k tools: the
// kernels against the Go loop over float32 rows.
func BenchmarkDots(b *testing.B) {
	const dim, n = 512, 10000
	q := make([]float32, dim)
	rows := make([]float32, dim*n)
	codes := make([]int8, dim*n)
	for i := range rows {
		rows[i] = float32(i%7) - 3
		codes[i] = int8(i%7) - 3
	}
	out := make([]float32, n)
	for _, k := range []struct {
		name string
		scan func()
	}{
		{"float32", func() { Dots(q, rows, out) }},
		{"int8", func() { DotsInt8(q, codes, out) }},
		{"baseline-go-float32", func() { dotsGeneric(q, rows, out) }},
		{"go-int8", func() { dotsInt8Generic(q, codes, out) }},
	} {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				k.scan()
			}
		})
	}
}
