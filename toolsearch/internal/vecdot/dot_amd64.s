#include "textflag.h"

// func dotsAVX2(q *float32, rows *float32, n int, dim int, out *float32)
//
// out[i] = q · rows[i*dim : (i+1)*dim] for i < n. dim is a positive multiple of 8.
TEXT ·dotsAVX2(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ rows+8(FP), DI
	MOVQ n+16(FP), DX
	MOVQ dim+24(FP), CX
	MOVQ out+32(FP), R8
	SHLQ $2, CX        // CX = bytes in a row
	MOVQ CX, R9
	ANDQ $-128, R9     // R9 = bytes in whole blocks of 32 floats
	TESTQ DX, DX
	JZ   done

row:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   AX, AX
	TESTQ  R9, R9
	JZ     tail

block:
	VMOVUPS     (SI)(AX*1), Y4
	VMOVUPS     32(SI)(AX*1), Y5
	VMOVUPS     64(SI)(AX*1), Y6
	VMOVUPS     96(SI)(AX*1), Y7
	VFMADD231PS (DI)(AX*1), Y4, Y0
	VFMADD231PS 32(DI)(AX*1), Y5, Y1
	VFMADD231PS 64(DI)(AX*1), Y6, Y2
	VFMADD231PS 96(DI)(AX*1), Y7, Y3
	ADDQ        $128, AX
	CMPQ        AX, R9
	JB          block

tail:
	CMPQ        AX, CX
	JAE         reduce
	VMOVUPS     (SI)(AX*1), Y4
	VFMADD231PS (DI)(AX*1), Y4, Y0
	ADDQ        $32, AX
	JMP         tail

reduce:
	VADDPS       Y1, Y0, Y0
	VADDPS       Y3, Y2, Y2
	VADDPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VMOVSS       X0, (R8)
	ADDQ         $4, R8
	ADDQ         CX, DI
	DECQ         DX
	JNZ          row

done:
	VZEROUPPER
	RET

// func dotsInt8AVX2(q *float32, rows *int8, n int, dim int, out *float32)
//
// out[i] = q · rows[i*dim : (i+1)*dim] for i < n, the int8 values taken as float32. dim is a
// positive multiple of 8.
TEXT ·dotsInt8AVX2(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ rows+8(FP), DI
	MOVQ n+16(FP), DX
	MOVQ dim+24(FP), CX // CX = bytes in a row
	MOVQ out+32(FP), R8
	MOVQ CX, R9
	ANDQ $-32, R9       // R9 = values in whole blocks of 32
	TESTQ DX, DX
	JZ   done8

row8:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   AX, AX
	TESTQ  R9, R9
	JZ     tail8

block8:
	VPMOVSXBD   (DI)(AX*1), Y4
	VPMOVSXBD   8(DI)(AX*1), Y5
	VPMOVSXBD   16(DI)(AX*1), Y6
	VPMOVSXBD   24(DI)(AX*1), Y7
	VCVTDQ2PS   Y4, Y4
	VCVTDQ2PS   Y5, Y5
	VCVTDQ2PS   Y6, Y6
	VCVTDQ2PS   Y7, Y7
	VFMADD231PS (SI)(AX*4), Y4, Y0
	VFMADD231PS 32(SI)(AX*4), Y5, Y1
	VFMADD231PS 64(SI)(AX*4), Y6, Y2
	VFMADD231PS 96(SI)(AX*4), Y7, Y3
	ADDQ        $32, AX
	CMPQ        AX, R9
	JB          block8

tail8:
	CMPQ        AX, CX
	JAE         reduce8
	VPMOVSXBD   (DI)(AX*1), Y4
	VCVTDQ2PS   Y4, Y4
	VFMADD231PS (SI)(AX*4), Y4, Y0
	ADDQ        $8, AX
	JMP         tail8

reduce8:
	VADDPS       Y1, Y0, Y0
	VADDPS       Y3, Y2, Y2
	VADDPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VMOVSS       X0, (R8)
	ADDQ         $4, R8
	ADDQ         CX, DI
	DECQ         DX
	JNZ          row8

done8:
	VZEROUPPER
	RET
