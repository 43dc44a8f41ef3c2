; llc selects v_mad_i64_i32 for these (sign-extended 32-bit factors, with
; and without a 64-bit accumulator, an inline-constant factor, a chained
; accumulator): its output simulates to the interpreter (sim_llc.rs).
define i64 @smul64_sext32(i32 %a, i32 %b) {
  %x = sext i32 %a to i64
  %y = sext i32 %b to i64
  %r = mul i64 %x, %y
  ret i64 %r
}

define i64 @smad64_sext32(i32 %a, i32 %b, i64 %c) {
  %x = sext i32 %a to i64
  %y = sext i32 %b to i64
  %m = mul i64 %x, %y
  %r = add i64 %m, %c
  ret i64 %r
}

define i64 @smul64_sext32_c(i32 %a) {
  %x = sext i32 %a to i64
  %r = mul i64 %x, -7
  ret i64 %r
}

define i64 @sdot2_sext32(i32 %a, i32 %b, i32 %c, i32 %d) {
  %x = sext i32 %a to i64
  %y = sext i32 %b to i64
  %z = sext i32 %c to i64
  %w = sext i32 %d to i64
  %m = mul i64 %x, %y
  %n = mul i64 %z, %w
  %r = add i64 %m, %n
  ret i64 %r
}
