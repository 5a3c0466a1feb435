//! The classic property-based testing shrinking challenges
//! (github.com/jlink/shrinking-challenge). Every tool finds these quickly;
//! they are scored by the size of the final counterexample.

/// bound5: five lists of `i16`, each summing (with wrap-around) below 256,
/// whose total should stay below 5 × 256, but overflows. Size: elements.
pub fn check_bound5(lists: &[Vec<i16>; 5]) -> Result<(), String> {
    let sum = |l: &Vec<i16>| l.iter().fold(0i16, |s, x| s.wrapping_add(*x));
    if lists.iter().any(|l| sum(l) >= 256) {
        return Ok(()); // precondition not met
    }
    let total = lists.iter().fold(0i16, |s, l| s.wrapping_add(sum(l)));
    if total < 5 * 256 {
        Ok(())
    } else {
        Err(format!("total {total}"))
    }
}

pub fn size_bound5(lists: &[Vec<i16>; 5]) -> usize {
    lists.iter().map(Vec::len).sum()
}

/// reverse: the false claim that reversing a list leaves it unchanged.
/// Minimal counterexample: `[0, 1]`. Size: length plus magnitudes.
pub fn check_reverse(xs: &[i32]) -> Result<(), String> {
    let reversed: Vec<i32> = xs.iter().rev().copied().collect();
    if reversed == xs {
        Ok(())
    } else {
        Err("reverse changed the list".into())
    }
}

pub fn size_reverse(xs: &[i32]) -> usize {
    xs.len() + xs.iter().map(|x| x.unsigned_abs() as usize).sum::<usize>()
}

/// large union list: the union of the lists has fewer than five distinct
/// elements. Minimal: `[[0, 1, -1, 2, -2]]`. Size: lists plus elements.
pub fn check_large_union_list(lists: &[Vec<i32>]) -> Result<(), String> {
    let union: std::collections::HashSet<i32> = lists.iter().flatten().copied().collect();
    if union.len() < 5 {
        Ok(())
    } else {
        Err(format!("{} distinct elements", union.len()))
    }
}

pub fn size_large_union_list(lists: &[Vec<i32>]) -> usize {
    lists.len() + lists.iter().map(Vec::len).sum::<usize>()
}

/// difference must not be zero: fails when `x >= 10` and `x == y`.
/// Minimal: `(10, 10)`. Size: `|x| + |y|`.
pub fn check_difference(x: i32, y: i32) -> Result<(), String> {
    if x < 10 || x.wrapping_sub(y) != 0 {
        Ok(())
    } else {
        Err(format!("difference of {x} and {y} is zero"))
    }
}

pub fn size_difference(x: i32, y: i32) -> usize {
    (x.unsigned_abs() + y.unsigned_abs()) as usize
}

/// calculator: an expression in postfix form (`(op, value)`: op % 3 = 0
/// pushes `value`, 1 adds, 2 divides). If no division has the literal 0 as
/// its divisor, evaluation should never divide by zero, but `0 / (0 + 0)`
/// does. Size: nodes of the expression.
pub fn check_calculator(program: &[(u8, i8)]) -> Result<(), String> {
    #[derive(Clone)]
    enum Expr {
        Lit(i64),
        Add(Box<Expr>, Box<Expr>),
        Div(Box<Expr>, Box<Expr>),
    }
    let mut stack: Vec<Expr> = Vec::new();
    for &(op, value) in program {
        match op % 3 {
            0 => stack.push(Expr::Lit(i64::from(value))),
            kind => {
                let (Some(b), Some(a)) = (stack.pop(), stack.pop()) else {
                    return Ok(());
                };
                stack.push(if kind == 1 {
                    Expr::Add(a.into(), b.into())
                } else {
                    Expr::Div(a.into(), b.into())
                });
            }
        }
    }
    let Some(expr) = stack.pop() else {
        return Ok(());
    };
    fn literal_zero_divisor(e: &Expr) -> bool {
        match e {
            Expr::Lit(_) => false,
            Expr::Add(a, b) => literal_zero_divisor(a) || literal_zero_divisor(b),
            Expr::Div(a, b) => {
                matches!(**b, Expr::Lit(0)) || literal_zero_divisor(a) || literal_zero_divisor(b)
            }
        }
    }
    fn eval(e: &Expr) -> Option<i64> {
        match e {
            Expr::Lit(v) => Some(*v),
            Expr::Add(a, b) => eval(a)?.checked_add(eval(b)?),
            Expr::Div(a, b) => eval(a)?.checked_div(eval(b)?),
        }
    }
    if literal_zero_divisor(&expr) || eval(&expr).is_some() {
        Ok(())
    } else {
        Err("division by zero".into())
    }
}

pub fn size_calculator(program: &[(u8, i8)]) -> usize {
    program.len()
}
