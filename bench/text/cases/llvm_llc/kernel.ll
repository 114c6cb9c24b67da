; ModuleID = 'kernel'
source_filename = "atomics.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.vec = type { ptr, i64, i64 }

@scale = dso_local global i32 3, align 4
@names = private unnamed_addr constant [3 x ptr] [ptr @.str.a, ptr @.str.b, ptr @.str.c], align 8
@.str.a = private unnamed_addr constant [6 x i8] c"alpha\00", align 1
@.str.b = private unnamed_addr constant [5 x i8] c"beta\00", align 1
@.str.c = private unnamed_addr constant [6 x i8] c"gamma\00", align 1

; Sum of the first n elements.
define dso_local i64 @sum(ptr %data, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi i64 [ 0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr inbounds i64, ptr %data, i64 %i
  %v = load i64, ptr %p, align 8
  %acc.next = add i64 %acc, %v
  %next = add nuw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret i64 %acc.next
}

; Grows a vector's capacity to at least want.
define dso_local void @reserve(ptr %vec, i64 %want) {
entry:
  %cap.p = getelementptr inbounds %struct.vec, ptr %vec, i32 0, i32 2
  %cap = load i64, ptr %cap.p, align 8
  %small = icmp ult i64 %cap, %want
  br i1 %small, label %grow, label %done

grow:
  %double = shl i64 %cap, 1
  %bigger = icmp ugt i64 %double, %want
  %new = select i1 %bigger, i64 %double, i64 %want
  store i64 %new, ptr %cap.p, align 8
  br label %done

done:
  ret void
}

; Scales a value by the global factor, clamping at limit.
define dso_local i32 @scaled(i32 %x, i32 %limit) {
entry:
  %f = load i32, ptr @scale, align 4
  %m = mul nsw i32 %x, %f
  %over = icmp sgt i32 %m, %limit
  br i1 %over, label %clamp, label %keep

clamp:
  br label %join

keep:
  %bias = sub nsw i32 %limit, %x
  %adj = add nsw i32 %m, %bias
  br label %join

join:
  %r = phi i32 [ %limit, %clamp ], [ %adj, %keep ]
  ret i32 %r
}

; Name of a category, or null past the end.
define dso_local ptr @category(i32 %k) {
entry:
  %in = icmp ult i32 %k, 3
  br i1 %in, label %look, label %none

look:
  %idx = zext i32 %k to i64
  %slot = getelementptr inbounds [3 x ptr], ptr @names, i64 0, i64 %idx
  %name = load ptr, ptr %slot, align 8
  ret ptr %name

none:
  ret ptr null
}

; Publishes a value with a fence the assembler is meant to accept.
define dso_local void @publish(ptr %slot, i32 %v) {
entry:
  store atomic i32 %v, ptr %slot release, align 4
  call void asm sideeffect "mfence", "~{memory}"()
  %tag = or i32 %v, 1
  call void asm sideeffect "lfence_all $0", "r,~{memory}"(i32 %tag)
  ret void
}

define dso_local i32 @main() {
entry:
  %slot = alloca i32, align 4
  call void @publish(ptr %slot, i32 7)
  %a = call i32 @scaled(i32 4, i32 100)
  %b = call ptr @category(i32 1)
  %nonnull = icmp ne ptr %b, null
  %c = zext i1 %nonnull to i32
  %r = add i32 %a, %c
  ret i32 %r
}
