//! The machine IR of one small function (a loop carrying a 64-bit sum)
//! after every stage of the pipeline, as `regdesc-cc compile
//! --print-after` prints it (insta snapshot), and the same function run
//! at every stage.

use regdesc_codegen::differential::{compare, DiffConfig};
use regdesc_codegen::pipeline::{compile_function, Options, Stage};
use regdesc_codegen::read_module;
use regdesc_ref32::Ref32;

const SUM: &str = "\
define i64 @sum(i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s1, %loop ]
  %z = zext i32 %i to i64
  %s1 = add i64 %s, %z
  %i1 = add i32 %i, 1
  %c = icmp ult i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret i64 %s1
}
";

#[test]
fn machine_ir_after_every_stage() {
    let m = read_module("sum.ll", SUM).unwrap_or_else(|d| panic!("{}", d.render(false)));
    let opts = Options {
        print_after: Stage::ALL.to_vec(),
        verify_each: true,
        ..Options::default()
    };
    let c =
        compile_function(&m.functions[0], &Ref32::new(), &opts).unwrap_or_else(|e| panic!("{e}"));
    let mut text = String::new();
    for (stage, mir) in &c.printed {
        text.push_str(&format!("# after {stage}\n{mir}\n"));
    }
    text.push_str(&format!("# assembly\n{}", c.asm.unwrap_or_default()));
    insta::assert_snapshot!(text);
    assert_eq!(c.printed.len(), Stage::ALL.len());
}

#[test]
fn every_stage_runs_like_the_ir() {
    let m = read_module("sum.ll", SUM).unwrap_or_else(|d| panic!("{}", d.render(false)));
    for stage in Stage::ALL {
        let cfg = DiffConfig {
            stage,
            lanes: 8,
            inputs: 64,
            seed: 1,
            file: "sum.ll".into(),
        };
        if let Err(e) = compare(&Ref32::new(), &m.functions[0], &cfg) {
            panic!("after {stage}: {e}");
        }
    }
}
