	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1030"
	.amdhsa_code_object_version 5
	.globl	half_add_bits                   ; -- Begin function half_add_bits
	.p2align	2
	.type	half_add_bits,@function
half_add_bits:                          ; @half_add_bits
; %bb.0:                                ; %entry
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	v_add_f16_e32 v2, v0, v1
	v_mul_f16_e32 v0, v2, v0
	v_sub_f16_e32 v0, v0, v1
	s_setpc_b64 s[30:31]
.Lfunc_end0:
	.size	half_add_bits, .Lfunc_end0-half_add_bits
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Function info:
; codeLenInByte = 20
; NumSgprs: 32
; NumVgprs: 3
; ScratchSize: 0
; MemoryBound: 0
	.text
	.globl	pack_halves                     ; -- Begin function pack_halves
	.p2align	2
	.type	pack_halves,@function
pack_halves:                            ; @pack_halves
; %bb.0:                                ; %entry
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	v_perm_b32 v0, v1, v0, 0x5040100
	v_pk_add_f16 v0, 0xbc003c00, v0
	s_setpc_b64 s[30:31]
.Lfunc_end1:
	.size	pack_halves, .Lfunc_end1-pack_halves
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Function info:
; codeLenInByte = 32
; NumSgprs: 32
; NumVgprs: 2
; ScratchSize: 0
; MemoryBound: 0
	.text
	.globl	swap_words                      ; -- Begin function swap_words
	.p2align	2
	.type	swap_words,@function
swap_words:                             ; @swap_words
; %bb.0:                                ; %entry
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	v_pk_add_u16 v0, 0xffff0001, v0 op_sel:[0,1] op_sel_hi:[1,0]
	s_setpc_b64 s[30:31]
.Lfunc_end2:
	.size	swap_words, .Lfunc_end2-swap_words
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Function info:
; codeLenInByte = 20
; NumSgprs: 32
; NumVgprs: 1
; ScratchSize: 0
; MemoryBound: 0
	.text
	.globl	abs_bits                        ; -- Begin function abs_bits
	.p2align	2
	.type	abs_bits,@function
abs_bits:                               ; @abs_bits
; %bb.0:                                ; %entry
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	v_and_b32_e32 v1, 0x7fff, v0
	v_or_b32_e32 v2, 0xffff8000, v1
	v_cmp_eq_u16_e32 vcc_lo, 0, v1
	v_cndmask_b32_e32 v0, v2, v0, vcc_lo
	s_setpc_b64 s[30:31]
.Lfunc_end3:
	.size	abs_bits, .Lfunc_end3-abs_bits
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Function info:
; codeLenInByte = 32
; NumSgprs: 34
; NumVgprs: 3
; ScratchSize: 0
; MemoryBound: 0
	.text
	.globl	float_from_halves               ; -- Begin function float_from_halves
	.p2align	2
	.type	float_from_halves,@function
float_from_halves:                      ; @float_from_halves
; %bb.0:                                ; %entry
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	v_and_b32_e32 v1, 1, v1
	v_lshlrev_b32_e32 v1, 4, v1
	v_bfe_u32 v0, v0, v1, 16
	v_lshlrev_b32_e32 v0, 13, v0
	v_mul_f32_e32 v0, 0x7b800000, v0
	s_setpc_b64 s[30:31]
.Lfunc_end4:
	.size	float_from_halves, .Lfunc_end4-float_from_halves
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Function info:
; codeLenInByte = 36
; NumSgprs: 32
; NumVgprs: 2
; ScratchSize: 0
; MemoryBound: 0
	.text
	.globl	vec32                           ; -- Begin function vec32
	.p2align	2
	.type	vec32,@function
vec32:                                  ; @vec32
; %bb.0:                                ; %entry
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	v_mul_lo_u32 v0, v0, v2
	v_mov_b32_e32 v1, 0
	v_bfe_i32 v0, v0, 3, 16
	s_setpc_b64 s[30:31]
.Lfunc_end5:
	.size	vec32, .Lfunc_end5-vec32
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Function info:
; codeLenInByte = 28
; NumSgprs: 32
; NumVgprs: 3
; ScratchSize: 0
; MemoryBound: 0
	.text
	.globl	float_ops                       ; -- Begin function float_ops
	.p2align	2
	.type	float_ops,@function
float_ops:                              ; @float_ops
; %bb.0:                                ; %entry
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	v_add_f32_e32 v1, v0, v1
	v_mul_f32_e32 v0, v1, v0
	v_add_f32_e32 v0, 0xbfc00000, v0
	s_setpc_b64 s[30:31]
.Lfunc_end6:
	.size	float_ops, .Lfunc_end6-float_ops
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Function info:
; codeLenInByte = 24
; NumSgprs: 32
; NumVgprs: 2
; ScratchSize: 0
; MemoryBound: 0
	.text
	.p2alignl 6, 3214868480
	.fill 48, 4, 3214868480
	.section	".note.GNU-stack","",@progbits
	.amdgpu_metadata
---
amdhsa.kernels:  []
amdhsa.target:   amdgcn-amd-amdhsa--gfx1030
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
