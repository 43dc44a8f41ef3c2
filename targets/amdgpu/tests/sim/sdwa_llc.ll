; Functions llc (14 and 19) compiles to SDWA instructions on gfx9: source
; selectors (WORD_1, BYTE_3, sext), UNUSED_PAD destinations, and the
; UNUSED_PRESERVE merge of two SDWA results. tests/sdwa.rs checks that
; llc's assembly has those forms and simulates to the interpreter.

define i32 @llc_sdwa_pad(i32 %a, i32 %b) {
  %ah = lshr i32 %a, 16
  %s = add i32 %ah, %b
  %r = shl i32 %s, 16
  ret i32 %r
}

define i32 @llc_sdwa_sext_src(i32 %a, i32 %b) {
  %ah = ashr i32 %a, 16
  %bh = ashr i32 %b, 24
  %s = mul i32 %ah, %bh
  ret i32 %s
}

define i32 @llc_sdwa_byte3(i32 %a, i32 %b) {
  %a3 = lshr i32 %a, 24
  %s = sub i32 %b, %a3
  %r = and i32 %s, 255
  ret i32 %r
}

define i32 @llc_sdwa_preserve_sub(i32 %a, i32 %b) {
  %a16 = trunc i32 %a to i16
  %b16 = trunc i32 %b to i16
  %m = sub i16 %a16, %b16
  %ms = shl i16 %m, 8
  %msz = zext i16 %ms to i32
  %ah = lshr i32 %a, 16
  %bh = lshr i32 %b, 16
  %ah16 = trunc i32 %ah to i16
  %bh16 = trunc i32 %bh to i16
  %af = bitcast i16 %ah16 to half
  %bf = bitcast i16 %bh16 to half
  %s = fmul half %af, %bf
  %si = bitcast half %s to i16
  %sz = zext i16 %si to i32
  %sh = shl i32 %sz, 16
  %r = or i32 %msz, %sh
  ret i32 %r
}

define i32 @llc_sdwa_preserve_add(i32 %a, i32 %b, i32 %c) {
  %c16 = trunc i32 %c to i16
  %b16 = trunc i32 %b to i16
  %m = add i16 %c16, %b16
  %ms = shl i16 %m, 8
  %msz = zext i16 %ms to i32
  %ah = lshr i32 %a, 16
  %bh = lshr i32 %b, 16
  %ah16 = trunc i32 %ah to i16
  %bh16 = trunc i32 %bh to i16
  %af = bitcast i16 %ah16 to half
  %bf = bitcast i16 %bh16 to half
  %s = fsub half %af, %bf
  %si = bitcast half %s to i16
  %sz = zext i16 %si to i32
  %sh = shl i32 %sz, 16
  %r = or i32 %sh, %msz
  ret i32 %r
}
