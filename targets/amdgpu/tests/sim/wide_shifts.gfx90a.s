	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.amdhsa_code_object_version 5
	.globl	shifts_128                      ; -- Begin function shifts_128
	.p2align	2
	.type	shifts_128,@function
shifts_128:                             ; @shifts_128
; %bb.0:                                ; %entry
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	v_and_b32_e32 v5, 0x7f, v4
	v_sub_u32_e32 v10, 64, v5
	v_lshrrev_b64 v[6:7], v10, v[0:1]
	v_lshlrev_b64 v[8:9], v4, v[2:3]
	v_subrev_u32_e32 v11, 64, v5
	v_or_b32_e32 v9, v9, v7
	v_or_b32_e32 v8, v8, v6
	v_lshlrev_b64 v[6:7], v11, v[0:1]
	v_cmp_gt_u32_e32 vcc, 64, v5
	v_cndmask_b32_e32 v7, v7, v9, vcc
	v_cmp_eq_u32_e64 s[4:5], 0, v5
	v_cndmask_b32_e32 v6, v6, v8, vcc
	v_cndmask_b32_e64 v5, v7, v3, s[4:5]
	v_cndmask_b32_e64 v12, v6, v2, s[4:5]
	v_lshlrev_b64 v[6:7], v4, v[0:1]
	v_cndmask_b32_e32 v13, 0, v7, vcc
	v_cndmask_b32_e32 v14, 0, v6, vcc
	v_lshlrev_b64 v[6:7], v10, v[2:3]
	v_lshrrev_b64 v[8:9], v4, v[0:1]
	v_or_b32_e32 v9, v9, v7
	v_or_b32_e32 v8, v8, v6
	v_lshrrev_b64 v[6:7], v11, v[2:3]
	v_cndmask_b32_e32 v7, v7, v9, vcc
	v_cndmask_b32_e32 v6, v6, v8, vcc
	v_cndmask_b32_e64 v10, v7, v1, s[4:5]
	v_cndmask_b32_e64 v15, v6, v0, s[4:5]
	v_lshrrev_b64 v[6:7], v4, v[2:3]
	v_cndmask_b32_e32 v16, 0, v7, vcc
	v_cndmask_b32_e32 v17, 0, v6, vcc
	v_ashrrev_i64 v[6:7], v11, v[2:3]
	v_cndmask_b32_e32 v7, v7, v9, vcc
	v_cndmask_b32_e64 v7, v7, v1, s[4:5]
	v_cndmask_b32_e32 v1, v6, v8, vcc
	v_cndmask_b32_e64 v6, v1, v0, s[4:5]
	v_ashrrev_i32_e32 v8, 31, v3
	v_ashrrev_i64 v[0:1], v4, v[2:3]
	v_cndmask_b32_e32 v2, v8, v0, vcc
	v_xor_b32_e32 v0, v14, v15
	v_cndmask_b32_e32 v3, v8, v1, vcc
	v_xor_b32_e32 v1, v13, v10
	v_add_co_u32_e32 v0, vcc, v0, v6
	v_xor_b32_e32 v4, v5, v16
	v_xor_b32_e32 v5, v12, v17
	v_addc_co_u32_e32 v1, vcc, v1, v7, vcc
	v_addc_co_u32_e32 v2, vcc, v5, v2, vcc
	v_addc_co_u32_e32 v3, vcc, v4, v3, vcc
	s_setpc_b64 s[30:31]
.Lfunc_end0:
	.size	shifts_128, .Lfunc_end0-shifts_128
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Function info:
; codeLenInByte = 264
; NumSgprs: 36
; NumVgprs: 18
; NumAgprs: 0
; TotalNumVgprs: 18
; ScratchSize: 0
; MemoryBound: 0
	.text
	.globl	shifts_256                      ; -- Begin function shifts_256
	.p2align	2
	.type	shifts_256,@function
shifts_256:                             ; @shifts_256
; %bb.0:                                ; %entry
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	v_mov_b32_e32 v9, 0
	buffer_store_byte v9, off, s[0:3], s32 offset:31
	buffer_store_byte v9, off, s[0:3], s32 offset:30
	buffer_store_byte v9, off, s[0:3], s32 offset:29
	buffer_store_byte v9, off, s[0:3], s32 offset:28
	buffer_store_byte v9, off, s[0:3], s32 offset:27
	buffer_store_byte v9, off, s[0:3], s32 offset:26
	buffer_store_byte v9, off, s[0:3], s32 offset:25
	buffer_store_byte v9, off, s[0:3], s32 offset:24
	buffer_store_byte v9, off, s[0:3], s32 offset:23
	buffer_store_byte v9, off, s[0:3], s32 offset:22
	buffer_store_byte v9, off, s[0:3], s32 offset:21
	buffer_store_byte v9, off, s[0:3], s32 offset:20
	buffer_store_byte v9, off, s[0:3], s32 offset:19
	buffer_store_byte v9, off, s[0:3], s32 offset:18
	buffer_store_byte v9, off, s[0:3], s32 offset:17
	buffer_store_byte v9, off, s[0:3], s32 offset:16
	buffer_store_byte v9, off, s[0:3], s32 offset:15
	buffer_store_byte v9, off, s[0:3], s32 offset:14
	buffer_store_byte v9, off, s[0:3], s32 offset:13
	buffer_store_byte v9, off, s[0:3], s32 offset:12
	buffer_store_byte v9, off, s[0:3], s32 offset:11
	buffer_store_byte v9, off, s[0:3], s32 offset:10
	buffer_store_byte v9, off, s[0:3], s32 offset:9
	buffer_store_byte v9, off, s[0:3], s32 offset:8
	buffer_store_byte v9, off, s[0:3], s32 offset:7
	buffer_store_byte v9, off, s[0:3], s32 offset:6
	buffer_store_byte v9, off, s[0:3], s32 offset:5
	buffer_store_byte v9, off, s[0:3], s32 offset:4
	buffer_store_byte v9, off, s[0:3], s32 offset:3
	buffer_store_byte v9, off, s[0:3], s32 offset:2
	buffer_store_byte v9, off, s[0:3], s32 offset:1
	buffer_store_byte v9, off, s[0:3], s32
	buffer_store_byte_d16_hi v7, off, s[0:3], s32 offset:62
	buffer_store_byte v7, off, s[0:3], s32 offset:60
	buffer_store_byte_d16_hi v6, off, s[0:3], s32 offset:58
	buffer_store_byte v6, off, s[0:3], s32 offset:56
	buffer_store_byte_d16_hi v5, off, s[0:3], s32 offset:54
	buffer_store_byte v5, off, s[0:3], s32 offset:52
	buffer_store_byte_d16_hi v4, off, s[0:3], s32 offset:50
	buffer_store_byte v4, off, s[0:3], s32 offset:48
	buffer_store_byte_d16_hi v3, off, s[0:3], s32 offset:46
	buffer_store_byte v3, off, s[0:3], s32 offset:44
	buffer_store_byte_d16_hi v2, off, s[0:3], s32 offset:42
	buffer_store_byte v2, off, s[0:3], s32 offset:40
	buffer_store_byte_d16_hi v1, off, s[0:3], s32 offset:38
	buffer_store_byte v1, off, s[0:3], s32 offset:36
	buffer_store_byte_d16_hi v0, off, s[0:3], s32 offset:34
	buffer_store_byte v0, off, s[0:3], s32 offset:32
	v_lshrrev_b32_e32 v9, 24, v7
	v_lshrrev_b32_e32 v7, 8, v7
	buffer_store_byte v7, off, s[0:3], s32 offset:61
	v_lshrrev_b32_e32 v7, 24, v6
	v_lshrrev_b32_e32 v6, 8, v6
	buffer_store_byte v6, off, s[0:3], s32 offset:57
	v_lshrrev_b32_e32 v6, 24, v5
	v_lshrrev_b32_e32 v5, 8, v5
	buffer_store_byte v5, off, s[0:3], s32 offset:53
	v_lshrrev_b32_e32 v5, 24, v4
	v_lshrrev_b32_e32 v4, 8, v4
	buffer_store_byte v4, off, s[0:3], s32 offset:49
	v_lshrrev_b32_e32 v4, 24, v3
	v_lshrrev_b32_e32 v3, 8, v3
	buffer_store_byte v3, off, s[0:3], s32 offset:45
	v_lshrrev_b32_e32 v3, 24, v2
	v_lshrrev_b32_e32 v2, 8, v2
	buffer_store_byte v2, off, s[0:3], s32 offset:41
	v_lshrrev_b32_e32 v2, 24, v1
	v_lshrrev_b32_e32 v1, 8, v1
	buffer_store_byte v1, off, s[0:3], s32 offset:37
	v_lshrrev_b32_e32 v1, 24, v0
	v_lshrrev_b32_e32 v0, 8, v0
	buffer_store_byte v0, off, s[0:3], s32 offset:33
	v_lshrrev_b32_e64 v0, 6, s32
	v_add_u32_e32 v0, 32, v0
	v_bfe_u32 v13, v8, 3, 5
	buffer_store_byte v9, off, s[0:3], s32 offset:63
	buffer_store_byte v7, off, s[0:3], s32 offset:59
	buffer_store_byte v6, off, s[0:3], s32 offset:55
	buffer_store_byte v5, off, s[0:3], s32 offset:51
	buffer_store_byte v4, off, s[0:3], s32 offset:47
	buffer_store_byte v3, off, s[0:3], s32 offset:43
	buffer_store_byte v2, off, s[0:3], s32 offset:39
	buffer_store_byte v1, off, s[0:3], s32 offset:35
	v_sub_u32_e32 v0, v0, v13
	buffer_load_ubyte v1, v0, s[0:3], 0 offen offset:12
	buffer_load_ubyte v2, v0, s[0:3], 0 offen offset:13
	buffer_load_ubyte v3, v0, s[0:3], 0 offen offset:14
	buffer_load_ubyte v4, v0, s[0:3], 0 offen offset:15
	buffer_load_ubyte v5, v0, s[0:3], 0 offen offset:8
	buffer_load_ubyte v6, v0, s[0:3], 0 offen offset:9
	buffer_load_ubyte v7, v0, s[0:3], 0 offen offset:10
	buffer_load_ubyte v9, v0, s[0:3], 0 offen offset:11
	buffer_load_ubyte v11, v0, s[0:3], 0 offen offset:4
	buffer_load_ubyte v12, v0, s[0:3], 0 offen offset:5
	buffer_load_ubyte v14, v0, s[0:3], 0 offen offset:6
	buffer_load_ubyte v15, v0, s[0:3], 0 offen offset:7
	buffer_load_ubyte v16, v0, s[0:3], 0 offen
	buffer_load_ubyte v18, v0, s[0:3], 0 offen offset:1
	buffer_load_ubyte v19, v0, s[0:3], 0 offen offset:2
	buffer_load_ubyte v20, v0, s[0:3], 0 offen offset:3
	buffer_load_ubyte v21, v0, s[0:3], 0 offen offset:20
	buffer_load_ubyte v22, v0, s[0:3], 0 offen offset:21
	buffer_load_ubyte v23, v0, s[0:3], 0 offen offset:22
	buffer_load_ubyte v24, v0, s[0:3], 0 offen offset:23
	buffer_load_ubyte v25, v0, s[0:3], 0 offen offset:18
	buffer_load_ubyte v26, v0, s[0:3], 0 offen offset:19
	buffer_load_ubyte v27, v0, s[0:3], 0 offen offset:16
	buffer_load_ubyte v28, v0, s[0:3], 0 offen offset:17
	buffer_load_ubyte v29, v0, s[0:3], 0 offen offset:28
	buffer_load_ubyte v30, v0, s[0:3], 0 offen offset:29
	buffer_load_ubyte v31, v0, s[0:3], 0 offen offset:30
	buffer_load_ubyte v32, v0, s[0:3], 0 offen offset:31
	buffer_load_ubyte v33, v0, s[0:3], 0 offen offset:24
	buffer_load_ubyte v34, v0, s[0:3], 0 offen offset:25
	buffer_load_ubyte v35, v0, s[0:3], 0 offen offset:26
	buffer_load_ubyte v36, v0, s[0:3], 0 offen offset:27
	v_and_b32_e32 v10, 7, v8
	s_waitcnt vmcnt(30)
	v_lshl_or_b32 v0, v2, 8, v1
	s_waitcnt vmcnt(28)
	v_lshl_or_b32 v1, v4, 8, v3
	v_lshl_or_b32 v1, v1, 16, v0
	s_waitcnt vmcnt(26)
	v_lshl_or_b32 v0, v6, 8, v5
	s_waitcnt vmcnt(24)
	v_lshl_or_b32 v2, v9, 8, v7
	v_lshl_or_b32 v0, v2, 16, v0
	s_waitcnt vmcnt(22)
	v_lshl_or_b32 v4, v12, 8, v11
	v_xor_b32_e32 v12, 63, v10
	s_waitcnt vmcnt(20)
	v_lshl_or_b32 v5, v15, 8, v14
	v_lshl_or_b32 v17, v5, 16, v4
	s_waitcnt vmcnt(18)
	v_lshl_or_b32 v4, v18, 8, v16
	v_lshlrev_b64 v[2:3], v10, v[0:1]
	s_waitcnt vmcnt(16)
	v_lshl_or_b32 v5, v20, 8, v19
	v_lshl_or_b32 v16, v5, 16, v4
	v_lshrrev_b64 v[4:5], 1, v[16:17]
	v_lshrrev_b64 v[4:5], v12, v[4:5]
	v_or_b32_e32 v2, v2, v4
	s_waitcnt vmcnt(14)
	v_lshl_or_b32 v4, v22, 8, v21
	s_waitcnt vmcnt(12)
	v_lshl_or_b32 v6, v24, 8, v23
	v_lshl_or_b32 v9, v6, 16, v4
	s_waitcnt vmcnt(10)
	v_lshl_or_b32 v4, v26, 8, v25
	s_waitcnt vmcnt(8)
	v_lshl_or_b32 v6, v28, 8, v27
	v_lshl_or_b32 v8, v4, 16, v6
	v_lshrrev_b64 v[0:1], 1, v[0:1]
	v_not_b32_e32 v14, v10
	v_lshlrev_b64 v[6:7], v10, v[8:9]
	v_lshrrev_b64 v[0:1], v14, v[0:1]
	v_or_b32_e32 v4, v7, v1
	v_or_b32_e32 v11, v6, v0
	s_waitcnt vmcnt(6)
	v_lshl_or_b32 v0, v30, 8, v29
	s_waitcnt vmcnt(4)
	v_lshl_or_b32 v1, v32, 8, v31
	v_lshl_or_b32 v1, v1, 16, v0
	s_waitcnt vmcnt(2)
	v_lshl_or_b32 v0, v34, 8, v33
	s_waitcnt vmcnt(0)
	v_lshl_or_b32 v6, v36, 8, v35
	v_lshl_or_b32 v0, v6, 16, v0
	v_lshlrev_b64 v[6:7], v10, v[0:1]
	v_lshrrev_b64 v[0:1], 1, v[8:9]
	v_lshrrev_b64 v[8:9], v12, v[0:1]
	v_or_b32_e32 v6, v6, v8
	v_ashrrev_i32_e32 v8, 31, v7
	v_lshrrev_b32_e32 v15, 24, v7
	v_lshlrev_b64 v[0:1], v10, v[16:17]
	buffer_store_byte_d16_hi v7, off, s[0:3], s32 offset:94
	buffer_store_byte v7, off, s[0:3], s32 offset:92
	buffer_store_byte_d16_hi v3, off, s[0:3], s32 offset:78
	buffer_store_byte v3, off, s[0:3], s32 offset:76
	buffer_store_byte_d16_hi v1, off, s[0:3], s32 offset:70
	buffer_store_byte v1, off, s[0:3], s32 offset:68
	buffer_store_byte_d16_hi v0, off, s[0:3], s32 offset:66
	buffer_store_byte v0, off, s[0:3], s32 offset:64
	buffer_store_byte_d16_hi v8, off, s[0:3], s32 offset:126
	buffer_store_byte v8, off, s[0:3], s32 offset:124
	buffer_store_byte_d16_hi v8, off, s[0:3], s32 offset:122
	buffer_store_byte v8, off, s[0:3], s32 offset:120
	buffer_store_byte_d16_hi v8, off, s[0:3], s32 offset:118
	buffer_store_byte v8, off, s[0:3], s32 offset:116
	buffer_store_byte_d16_hi v8, off, s[0:3], s32 offset:114
	buffer_store_byte v8, off, s[0:3], s32 offset:112
	buffer_store_byte_d16_hi v8, off, s[0:3], s32 offset:110
	buffer_store_byte v8, off, s[0:3], s32 offset:108
	buffer_store_byte_d16_hi v8, off, s[0:3], s32 offset:106
	buffer_store_byte v8, off, s[0:3], s32 offset:104
	buffer_store_byte_d16_hi v8, off, s[0:3], s32 offset:102
	buffer_store_byte v8, off, s[0:3], s32 offset:100
	buffer_store_byte_d16_hi v8, off, s[0:3], s32 offset:98
	buffer_store_byte v8, off, s[0:3], s32 offset:96
	buffer_store_byte v15, off, s[0:3], s32 offset:95
	v_lshrrev_b32_e32 v15, 8, v7
	buffer_store_byte v15, off, s[0:3], s32 offset:93
	v_lshrrev_b32_e32 v15, 24, v3
	buffer_store_byte v15, off, s[0:3], s32 offset:79
	v_lshrrev_b32_e32 v15, 8, v3
	buffer_store_byte v15, off, s[0:3], s32 offset:77
	v_lshrrev_b32_e32 v15, 24, v1
	buffer_store_byte v15, off, s[0:3], s32 offset:71
	v_lshrrev_b32_e32 v15, 8, v1
	buffer_store_byte v15, off, s[0:3], s32 offset:69
	v_lshrrev_b32_e32 v15, 24, v0
	buffer_store_byte v15, off, s[0:3], s32 offset:67
	v_lshrrev_b32_e32 v15, 8, v0
	buffer_store_byte v15, off, s[0:3], s32 offset:65
	v_lshrrev_b32_e32 v15, 24, v8
	v_lshrrev_b32_e32 v8, 8, v8
	buffer_store_byte v15, off, s[0:3], s32 offset:127
	buffer_store_byte v8, off, s[0:3], s32 offset:125
	buffer_store_byte v15, off, s[0:3], s32 offset:123
	buffer_store_byte v8, off, s[0:3], s32 offset:121
	buffer_store_byte v15, off, s[0:3], s32 offset:119
	buffer_store_byte v8, off, s[0:3], s32 offset:117
	buffer_store_byte v15, off, s[0:3], s32 offset:115
	buffer_store_byte v8, off, s[0:3], s32 offset:113
	buffer_store_byte v15, off, s[0:3], s32 offset:111
	buffer_store_byte v8, off, s[0:3], s32 offset:109
	buffer_store_byte v15, off, s[0:3], s32 offset:107
	buffer_store_byte v8, off, s[0:3], s32 offset:105
	buffer_store_byte v15, off, s[0:3], s32 offset:103
	buffer_store_byte v8, off, s[0:3], s32 offset:101
	buffer_store_byte v15, off, s[0:3], s32 offset:99
	buffer_store_byte v8, off, s[0:3], s32 offset:97
	buffer_store_byte_d16_hi v6, off, s[0:3], s32 offset:90
	buffer_store_byte v6, off, s[0:3], s32 offset:88
	buffer_store_byte_d16_hi v4, off, s[0:3], s32 offset:86
	buffer_store_byte v4, off, s[0:3], s32 offset:84
	buffer_store_byte_d16_hi v11, off, s[0:3], s32 offset:82
	buffer_store_byte v11, off, s[0:3], s32 offset:80
	buffer_store_byte_d16_hi v2, off, s[0:3], s32 offset:74
	buffer_store_byte v2, off, s[0:3], s32 offset:72
	v_lshrrev_b32_e32 v8, 24, v6
	buffer_store_byte v8, off, s[0:3], s32 offset:91
	v_lshrrev_b32_e32 v8, 8, v6
	buffer_store_byte v8, off, s[0:3], s32 offset:89
	v_lshrrev_b32_e32 v8, 24, v4
	buffer_store_byte v8, off, s[0:3], s32 offset:87
	v_lshrrev_b32_e32 v8, 8, v4
	buffer_store_byte v8, off, s[0:3], s32 offset:85
	v_lshrrev_b32_e32 v8, 24, v11
	buffer_store_byte v8, off, s[0:3], s32 offset:83
	v_lshrrev_b32_e32 v8, 8, v11
	buffer_store_byte v8, off, s[0:3], s32 offset:81
	v_lshrrev_b32_e32 v8, 24, v2
	v_lshrrev_b32_e64 v15, 6, s32
	buffer_store_byte v8, off, s[0:3], s32 offset:75
	v_lshrrev_b32_e32 v8, 8, v2
	v_add_u32_e32 v15, 64, v15
	buffer_store_byte v8, off, s[0:3], s32 offset:73
	v_add_u32_e32 v8, v15, v13
	buffer_load_ubyte v13, v8, s[0:3], 0 offen offset:12
	buffer_load_ubyte v15, v8, s[0:3], 0 offen offset:13
	buffer_load_ubyte v16, v8, s[0:3], 0 offen offset:14
	buffer_load_ubyte v17, v8, s[0:3], 0 offen offset:15
	buffer_load_ubyte v18, v8, s[0:3], 0 offen offset:8
	buffer_load_ubyte v19, v8, s[0:3], 0 offen offset:9
	buffer_load_ubyte v20, v8, s[0:3], 0 offen offset:10
	buffer_load_ubyte v21, v8, s[0:3], 0 offen offset:11
	buffer_load_ubyte v22, v8, s[0:3], 0 offen offset:20
	buffer_load_ubyte v23, v8, s[0:3], 0 offen offset:21
	buffer_load_ubyte v24, v8, s[0:3], 0 offen offset:22
	buffer_load_ubyte v25, v8, s[0:3], 0 offen offset:23
	buffer_load_ubyte v26, v8, s[0:3], 0 offen offset:18
	buffer_load_ubyte v27, v8, s[0:3], 0 offen offset:19
	buffer_load_ubyte v28, v8, s[0:3], 0 offen offset:16
	buffer_load_ubyte v29, v8, s[0:3], 0 offen offset:17
	buffer_load_ubyte v30, v8, s[0:3], 0 offen offset:28
	buffer_load_ubyte v31, v8, s[0:3], 0 offen offset:29
	buffer_load_ubyte v32, v8, s[0:3], 0 offen offset:30
	buffer_load_ubyte v33, v8, s[0:3], 0 offen offset:31
	buffer_load_ubyte v34, v8, s[0:3], 0 offen offset:24
	buffer_load_ubyte v35, v8, s[0:3], 0 offen offset:25
	buffer_load_ubyte v36, v8, s[0:3], 0 offen offset:26
	buffer_load_ubyte v37, v8, s[0:3], 0 offen offset:27
	buffer_load_ubyte v38, v8, s[0:3], 0 offen offset:4
	buffer_load_ubyte v39, v8, s[0:3], 0 offen offset:5
	buffer_load_ubyte v48, v8, s[0:3], 0 offen offset:6
	buffer_load_ubyte v49, v8, s[0:3], 0 offen offset:7
	buffer_load_ubyte v50, v8, s[0:3], 0 offen
	buffer_load_ubyte v51, v8, s[0:3], 0 offen offset:1
	buffer_load_ubyte v52, v8, s[0:3], 0 offen offset:2
	buffer_load_ubyte v53, v8, s[0:3], 0 offen offset:3
	v_or_b32_e32 v3, v3, v5
	v_or_b32_e32 v5, v7, v9
	s_waitcnt vmcnt(30)
	v_lshl_or_b32 v7, v15, 8, v13
	s_waitcnt vmcnt(28)
	v_lshl_or_b32 v8, v17, 8, v16
	v_lshl_or_b32 v9, v8, 16, v7
	s_waitcnt vmcnt(26)
	v_lshl_or_b32 v7, v19, 8, v18
	s_waitcnt vmcnt(24)
	v_lshl_or_b32 v8, v21, 8, v20
	v_lshl_or_b32 v8, v8, 16, v7
	s_waitcnt vmcnt(22)
	v_lshl_or_b32 v7, v23, 8, v22
	v_lshrrev_b64 v[16:17], v10, v[8:9]
	s_waitcnt vmcnt(20)
	v_lshl_or_b32 v13, v25, 8, v24
	v_lshl_or_b32 v19, v13, 16, v7
	s_waitcnt vmcnt(18)
	v_lshl_or_b32 v7, v27, 8, v26
	v_lshlrev_b64 v[8:9], 1, v[8:9]
	s_waitcnt vmcnt(16)
	v_lshl_or_b32 v13, v29, 8, v28
	v_lshl_or_b32 v18, v7, 16, v13
	v_lshlrev_b64 v[20:21], 1, v[18:19]
	s_waitcnt vmcnt(14)
	v_lshl_or_b32 v7, v31, 8, v30
	s_waitcnt vmcnt(12)
	v_lshl_or_b32 v13, v33, 8, v32
	v_lshlrev_b64 v[14:15], v14, v[20:21]
	v_lshl_or_b32 v21, v13, 16, v7
	s_waitcnt vmcnt(10)
	v_lshl_or_b32 v7, v35, 8, v34
	s_waitcnt vmcnt(8)
	v_lshl_or_b32 v13, v37, 8, v36
	v_lshl_or_b32 v20, v13, 16, v7
	s_waitcnt vmcnt(6)
	v_lshl_or_b32 v7, v39, 8, v38
	v_lshlrev_b64 v[22:23], 1, v[20:21]
	s_waitcnt vmcnt(4)
	v_lshl_or_b32 v13, v49, 8, v48
	v_lshl_or_b32 v25, v13, 16, v7
	s_waitcnt vmcnt(2)
	v_lshl_or_b32 v7, v51, 8, v50
	v_lshlrev_b64 v[22:23], v12, v[22:23]
	s_waitcnt vmcnt(0)
	v_lshl_or_b32 v13, v53, 8, v52
	v_lshl_or_b32 v24, v13, 16, v7
	v_lshrrev_b64 v[18:19], v10, v[18:19]
	v_lshrrev_b64 v[24:25], v10, v[24:25]
	v_lshlrev_b64 v[8:9], v12, v[8:9]
	v_or_b32_e32 v15, v17, v15
	v_or_b32_e32 v14, v16, v14
	v_or_b32_e32 v23, v19, v23
	v_or_b32_e32 v22, v18, v22
	v_or_b32_e32 v9, v25, v9
	v_or_b32_e32 v8, v24, v8
	v_ashrrev_i64 v[12:13], v10, v[20:21]
	v_lshrrev_b64 v[8:9], 3, v[8:9]
	v_lshrrev_b64 v[20:21], 3, v[22:23]
	v_lshrrev_b64 v[14:15], 3, v[14:15]
	v_lshlrev_b32_e32 v10, 29, v12
	v_lshrrev_b64 v[12:13], 3, v[12:13]
	v_lshlrev_b32_e32 v16, 29, v16
	v_lshlrev_b32_e32 v17, 29, v18
	v_or_b32_e32 v7, v13, v5
	v_or_b32_e32 v6, v12, v6
	v_or3_b32 v3, v15, v17, v3
	v_or3_b32 v2, v14, 0, v2
	v_or3_b32 v5, v21, v10, v4
	v_or3_b32 v4, v20, 0, v11
	v_or3_b32 v1, v9, v16, v1
	v_or3_b32 v0, v8, 0, v0
	s_setpc_b64 s[30:31]
.Lfunc_end1:
	.size	shifts_256, .Lfunc_end1-shifts_256
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Function info:
; codeLenInByte = 2560
; NumSgprs: 37
; NumVgprs: 54
; NumAgprs: 0
; TotalNumVgprs: 54
; ScratchSize: 132
; MemoryBound: 0
	.text
	.globl	fshl_64                         ; -- Begin function fshl_64
	.p2align	2
	.type	fshl_64,@function
fshl_64:                                ; @fshl_64
; %bb.0:                                ; %entry
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	v_and_b32_e32 v6, 63, v4
	v_mov_b32_e32 v7, 0
	v_sub_u32_e32 v5, 64, v6
	v_lshrrev_b64 v[2:3], v5, v[2:3]
	v_cmp_ne_u64_e32 vcc, 0, v[6:7]
	v_lshlrev_b64 v[0:1], v4, v[0:1]
	v_cndmask_b32_e32 v3, 0, v3, vcc
	v_cndmask_b32_e32 v2, 0, v2, vcc
	v_or_b32_e32 v1, v1, v3
	v_or_b32_e32 v0, v0, v2
	s_setpc_b64 s[30:31]
.Lfunc_end2:
	.size	fshl_64, .Lfunc_end2-fshl_64
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Function info:
; codeLenInByte = 56
; NumSgprs: 36
; NumVgprs: 8
; NumAgprs: 0
; TotalNumVgprs: 8
; ScratchSize: 0
; MemoryBound: 0
	.text
	.globl	shifts_16                       ; -- Begin function shifts_16
	.p2align	2
	.type	shifts_16,@function
shifts_16:                              ; @shifts_16
; %bb.0:                                ; %entry
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	v_ashrrev_i16_e32 v0, v1, v0
	v_lshrrev_b16_e32 v0, 1, v0
	s_setpc_b64 s[30:31]
.Lfunc_end3:
	.size	shifts_16, .Lfunc_end3-shifts_16
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Function info:
; codeLenInByte = 16
; NumSgprs: 36
; NumVgprs: 2
; NumAgprs: 0
; TotalNumVgprs: 2
; ScratchSize: 0
; MemoryBound: 0
	.text
	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.section	".note.GNU-stack","",@progbits
	.amdgpu_metadata
---
amdhsa.kernels:  []
amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
