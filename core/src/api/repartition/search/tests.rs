//! The exact search against an exhaustive one over every combination of layouts, on small random
//! live states; and the cases from the issues that motivated it.

use super::*;
use crate::catalog::find_model;
use crate::pack::mig::verify;
use proptest::prelude::*;

fn index(model: &GpuModel, name: &str) -> usize {
    model.profiles.iter().position(|p| p.name == name).unwrap()
}

/// The same objective, by trying every layout (and every count of freed instances) on every GPU.
fn brute_force(model: &GpuModel, gpus: &[Vec<Existing>], asks: &[u32]) -> (u32, u32, u32) {
    let n = model.profiles.len();
    let mut demand = asks.to_vec();
    demand.resize(n, 0);
    for e in gpus.iter().flatten().filter(|e| e.in_use) {
        demand[e.placed.profile] += 1;
    }
    let all = layouts(model, &vec![8; n]);
    let per_gpu: Vec<Vec<Option_>> = gpus.iter().map(|g| options(model, g, &all)).collect();
    let in_use: u32 = gpus.iter().flatten().filter(|e| e.in_use).count() as u32;
    let mut best: Option<(u32, u32, u32)> = None;
    let mut pick = vec![(0usize, 0usize); gpus.len()];
    type Visit<'v> = &'v mut dyn FnMut(&[(usize, usize)]);
    fn walk(g: usize, per_gpu: &[Vec<Option_>], pick: &mut Vec<(usize, usize)>, visit: Visit) {
        if g == per_gpu.len() {
            visit(pick);
            return;
        }
        for (oi, opt) in per_gpu[g].iter().enumerate() {
            for ui in 0..opt.uses.len() {
                pick[g] = (oi, ui);
                walk(g + 1, per_gpu, pick, visit);
            }
        }
    }
    walk(0, &per_gpu, &mut pick, &mut |pick| {
        let mut consumed = vec![0u32; n];
        let (mut kept, mut touched) = (0, 0);
        for (g, &(oi, ui)) in pick.iter().enumerate() {
            let opt = &per_gpu[g][oi];
            kept += opt.kept;
            touched += u32::from(opt.touched);
            for (c, u) in consumed.iter_mut().zip(&opt.uses[ui].1) {
                *c += u;
            }
        }
        let asks_of = |p: usize| asks.get(p).copied().unwrap_or(0);
        let fits =
            (0..n).all(|p| consumed[p] <= demand[p] && consumed[p] >= demand[p] - asks_of(p));
        if !fits {
            return;
        }
        let unplaced: u32 = (0..n).map(|p| demand[p] - consumed[p]).sum();
        let score = (unplaced, in_use - kept, touched);
        if best.is_none_or(|b| score < b) {
            best = Some(score);
        }
    });
    best.unwrap()
}

#[test]
fn the_cases_from_the_issues() {
    let a100 = find_model("A100-SXM4-80GB").unwrap();
    let one = index(a100, "1g.10gb");
    let three = index(a100, "3g.40gb");
    // kubernetes-sigs/dra-driver-nvidia-gpu#933: 1g.10gb at 0, 1 and 5 leave no room for a 3g.40gb;
    // moving the one at 5 to 2 (or 3) makes room at 4: one instance moved, one GPU touched.
    let at = |p: usize, start: u8| Existing {
        placed: Placed { profile: p, start },
        in_use: true,
    };
    let gpu = vec![at(one, 0), at(one, 1), at(one, 5)];
    let mut asks = vec![0; a100.profiles.len()];
    asks[three] = 1;
    let s = solve(a100, std::slice::from_ref(&gpu), &asks).unwrap();
    assert_eq!(
        (s.moved, s.touched, s.unplaced.iter().sum::<u32>()),
        (1, 1, 0)
    );
    let layout = &s.choices[0].layout;
    assert!(
        layout.contains(&Placed {
            profile: three,
            start: 4
        }),
        "{layout:?}"
    );
    assert!(verify(a100, layout).is_ok());
    // With a second, empty GPU the 3g goes there and nothing moves.
    let s = solve(a100, &[gpu.clone(), Vec::new()], &asks).unwrap();
    assert_eq!((s.moved, s.touched), (0, 1));
    // Two 3g.40gb asks on the full-ish GPU alone: only one fits (4 + 3 > 7 compute slices), the
    // other is unplaced, and still only one instance moves.
    asks[three] = 2;
    let s = solve(a100, &[gpu], &asks).unwrap();
    assert_eq!(s.unplaced[three], 1);
    assert_eq!(s.moved, 1);
}

#[test]
fn a_freed_instance_serves_an_ask_of_its_profile_without_any_change() {
    let a100 = find_model("A100-SXM4-40GB").unwrap();
    let two = index(a100, "2g.10gb");
    let gpu = vec![Existing {
        placed: Placed {
            profile: two,
            start: 2,
        },
        in_use: false,
    }];
    let mut asks = vec![0; a100.profiles.len()];
    asks[two] = 1;
    let s = solve(a100, &[gpu], &asks).unwrap();
    assert_eq!((s.moved, s.touched), (0, 0));
    assert_eq!(
        s.choices[0].leftover,
        [false],
        "the freed 2g.10gb serves the ask"
    );
}

/// A random valid live state: instances added at random placements while the rules hold.
fn live(model: &GpuModel, picks: &[(usize, u8, bool)]) -> Vec<Existing> {
    let mut gpu: Vec<Existing> = Vec::new();
    for &(p, s, in_use) in picks {
        let placed = Placed {
            profile: p % model.profiles.len(),
            start: s,
        };
        let mut trial: Vec<Placed> = gpu.iter().map(|e| e.placed).collect();
        trial.push(placed);
        if verify(model, &trial).is_ok() {
            gpu.push(Existing { placed, in_use });
        }
    }
    gpu
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// On two GPUs of a 4-slice board (A30: every layout of both is tried), and of an 8-slice one
    /// with three plain profiles, the search's (unplaced, moved, touched) is the exhaustive minimum.
    #[test]
    fn the_search_is_exact(
        a in prop::collection::vec((0usize..12, 0u8..8, any::<bool>()), 0..5),
        b in prop::collection::vec((0usize..12, 0u8..8, any::<bool>()), 0..5),
        ask_counts in prop::collection::vec(0u32..3, 3),
        board in prop::sample::select(vec!["A30", "A100-SXM4-40GB"]),
    ) {
        let model = find_model(board).unwrap();
        // On the 8-slice board, three profiles keep the exhaustive search small.
        let names: &[&str] = if board == "A30" { &["1g.6gb", "2g.12gb", "4g.24gb"] } else { &["1g.5gb", "2g.10gb", "3g.20gb"] };
        let ids: Vec<usize> = names.iter().map(|n| index(model, n)).collect();
        let pick = |v: &Vec<(usize, u8, bool)>| -> Vec<(usize, u8, bool)> {
            v.iter().map(|&(p, s, u)| (ids[p % ids.len()], s, u)).collect()
        };
        let gpus = vec![live(model, &pick(&a)), live(model, &pick(&b))];
        let mut asks = vec![0u32; model.profiles.len()];
        for (k, &c) in ask_counts.iter().enumerate() {
            asks[ids[k]] = c;
        }
        let s = solve(model, &gpus, &asks).unwrap();
        let exhaustive = brute_force(model, &gpus, &asks);
        prop_assert_eq!((s.unplaced.iter().sum::<u32>(), s.moved, s.touched), exhaustive);
        // Every final layout is valid, and every instance in use is somewhere afterwards.
        for (g, c) in s.choices.iter().enumerate() {
            prop_assert!(verify(model, &c.layout).is_ok(), "GPU {}: {:?}", g, c.layout);
        }
        for p in 0..model.profiles.len() {
            let needed = gpus.iter().flatten().filter(|e| e.in_use && e.placed.profile == p).count();
            let after = s.choices.iter().flat_map(|c| c.layout.iter().zip(&c.leftover)).filter(|(l, left)| l.profile == p && !**left).count();
            prop_assert!(after >= needed);
        }
    }
}
