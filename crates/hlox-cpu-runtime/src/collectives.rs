//! Collectives across devices: the transport ([`Communicator`]: threads of
//! one process here, MPI ranks in the CLI) and what each collective
//! computes from every device's contribution ([`run_collective`]).
//!
//! Every collective is one exchange: each device contributes its operand
//! buffers, receives every device's contribution, and computes its own
//! result from those of its group, in group order (so every device of a
//! group computes the same bits, as XLA's CPU collectives do). Devices
//! in no group of a collective still take part in the exchange, so the
//! exchange is the same for every collective: a rendezvous of all devices.
//!
//! The device a thread runs as is a thread-local [`DeviceContext`] set by
//! the multi-device runner around each device's run ([`with_device`]); the
//! collective custom call (`hlox.collective`) reads it.

use hlox_hlo::sharding::{CollectiveDesc, CollectiveKind, ReduceKind, Topology};
use hlox_hlo::ElementType;
use std::cell::RefCell;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use thiserror::Error;

/// Why a collective did not complete.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum CollectiveError {
    #[error(
        "collective {collective} on device {device}: device(s) {missing:?} did not arrive \
         within {secs:.1} s (a device that fails or takes another branch never arrives; \
         raise the limit with --collective-timeout)"
    )]
    Timeout {
        collective: String,
        device: usize,
        missing: Vec<usize>,
        secs: f64,
    },
    #[error("collective {collective} on device {device}: stopped because device {failed} failed: {message}")]
    Aborted {
        collective: String,
        device: usize,
        failed: usize,
        message: String,
    },
    #[error("collective {collective}: {message}")]
    Invalid { collective: String, message: String },
    #[error("collective {collective}: {source}")]
    Buffers {
        collective: String,
        #[source]
        source: BufferError,
    },
    #[error("collective {collective}: the transport failed: {message}")]
    Transport { collective: String, message: String },
    #[error("no device context on this thread: a module with collectives runs through a multi-device client (hlox::Client::cpu_devices, --devices N or --mpi)")]
    NoDevice,
}

/// How devices exchange their contributions.
pub trait Communicator: Send + Sync {
    /// The number of devices.
    fn size(&self) -> usize;
    /// Every device's `data` (all of one length), concatenated in device
    /// order. Blocks until every device contributed; `collective` names
    /// the instruction for errors. The devices of one process share the
    /// one gathered buffer (no copy per device).
    fn all_gather(
        &self,
        rank: usize,
        collective: &str,
        data: &[u8],
    ) -> Result<Arc<Vec<u8>>, CollectiveError>;
    /// Device `rank` failed with `message`: wake every device waiting in
    /// (or later entering) a rendezvous with that error.
    fn abort(&self, rank: usize, message: &str);
}

/// The devices of one process, each a thread, meeting at a rendezvous.
pub struct InProcess {
    n: usize,
    timeout: Duration,
    state: Mutex<Rendezvous>,
    cv: Condvar,
}

struct Rendezvous {
    generation: u64,
    slots: Vec<Option<Vec<u8>>>,
    arrived: usize,
    result: Arc<Vec<u8>>,
    failure: Option<(usize, String)>,
}

impl InProcess {
    /// `n` devices; a rendezvous that waits longer than `timeout` fails,
    /// naming the devices that did not arrive.
    pub fn new(n: usize, timeout: Duration) -> InProcess {
        InProcess {
            n,
            timeout,
            state: Mutex::new(Rendezvous {
                generation: 0,
                slots: vec![None; n],
                arrived: 0,
                result: Arc::new(Vec::new()),
                failure: None,
            }),
            cv: Condvar::new(),
        }
    }
}

impl Communicator for InProcess {
    fn size(&self) -> usize {
        self.n
    }

    fn all_gather(
        &self,
        rank: usize,
        collective: &str,
        data: &[u8],
    ) -> Result<Arc<Vec<u8>>, CollectiveError> {
        let aborted = |(failed, message): &(usize, String)| CollectiveError::Aborted {
            collective: collective.to_string(),
            device: rank,
            failed: *failed,
            message: message.clone(),
        };
        let lock_err = || CollectiveError::Transport {
            collective: collective.to_string(),
            message: "the rendezvous lock is poisoned".into(),
        };
        let mut st = self.state.lock().map_err(|_| lock_err())?;
        if let Some(f) = &st.failure {
            return Err(aborted(f));
        }
        if rank >= self.n || st.slots[rank].is_some() {
            return Err(CollectiveError::Invalid {
                collective: collective.to_string(),
                message: format!(
                    "device {rank} entered a rendezvous twice or is not one of {}",
                    self.n
                ),
            });
        }
        if let Some(len) = st.slots.iter().flatten().next().map(|s| s.len()) {
            if len != data.len() {
                let msg = format!(
                    "device {rank} contributes {} bytes where others contribute {len}: the \
                     devices are not running the same collective",
                    data.len()
                );
                st.failure = Some((rank, msg.clone()));
                self.cv.notify_all();
                return Err(CollectiveError::Invalid {
                    collective: collective.to_string(),
                    message: msg,
                });
            }
        }
        st.slots[rank] = Some(data.to_vec());
        st.arrived += 1;
        let gen = st.generation;
        if st.arrived == self.n {
            // Device 0's contribution becomes the front of the gathered
            // buffer; the others are appended once, and every device gets
            // the same buffer.
            let mut all = st.slots[0].take().unwrap_or_default();
            all.reserve(data.len() * (self.n - 1));
            for s in st.slots.iter_mut().skip(1) {
                all.extend_from_slice(&s.take().unwrap_or_default());
            }
            st.result = Arc::new(all);
            st.arrived = 0;
            st.generation += 1;
            self.cv.notify_all();
            return Ok(st.result.clone());
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            if st.generation != gen {
                return Ok(st.result.clone());
            }
            if let Some(f) = &st.failure {
                return Err(aborted(f));
            }
            let now = Instant::now();
            if now >= deadline {
                let missing: Vec<usize> = (0..self.n).filter(|&d| st.slots[d].is_none()).collect();
                let err = CollectiveError::Timeout {
                    collective: collective.to_string(),
                    device: rank,
                    missing: missing.clone(),
                    secs: self.timeout.as_secs_f64(),
                };
                st.failure = Some((
                    missing.first().copied().unwrap_or(rank),
                    format!("it did not arrive at collective {collective}"),
                ));
                self.cv.notify_all();
                return Err(err);
            }
            st = self
                .cv
                .wait_timeout(st, deadline - now)
                .map_err(|_| lock_err())?
                .0;
        }
    }

    fn abort(&self, rank: usize, message: &str) {
        if let Ok(mut st) = self.state.lock() {
            if st.failure.is_none() {
                st.failure = Some((rank, message.to_string()));
            }
        }
        self.cv.notify_all();
    }
}

/// The device a thread is running as.
#[derive(Clone)]
pub struct DeviceContext {
    pub rank: usize,
    pub topology: Topology,
    pub comm: Arc<dyn Communicator>,
}

thread_local! {
    static CURRENT: RefCell<Option<DeviceContext>> = const { RefCell::new(None) };
}

/// Runs `f` as device `ctx.rank` (restoring the previous context after).
pub fn with_device<R>(ctx: DeviceContext, f: impl FnOnce() -> R) -> R {
    let prev = CURRENT.with(|c| c.replace(Some(ctx)));
    struct Restore(Option<DeviceContext>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let p = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = p);
        }
    }
    let _restore = Restore(prev);
    f()
}

/// The device this thread runs as (`None` outside a multi-device run).
pub fn current_device() -> Option<usize> {
    CURRENT.with(|c| c.borrow().as_ref().map(|d| d.rank))
}

fn current() -> Result<DeviceContext, CollectiveError> {
    CURRENT
        .with(|c| c.borrow().clone())
        .ok_or(CollectiveError::NoDevice)
}

fn byte_len(desc: &CollectiveDesc, dims: &[i64]) -> usize {
    dims.iter().product::<i64>().max(0) as usize * desc.ty.byte_size()
}

/// Runs collective `desc` as this thread's device: `ins` are the operand
/// buffers (row-major), `outs` the result buffers (one per result leaf).
pub fn run_collective(
    desc: &CollectiveDesc,
    ins: &[&[u8]],
    outs: &mut [&mut [u8]],
) -> Result<(), CollectiveError> {
    let ctx = current()?;
    let me = ctx.rank as i64;
    let invalid = |message: String| CollectiveError::Invalid {
        collective: desc.name.clone(),
        message,
    };
    let buffers = |source: BufferError| CollectiveError::Buffers {
        collective: desc.name.clone(),
        source,
    };
    // Buffer `k` of the operands or results (`what`) has `got` bytes.
    let check_len = |what: &str, k: usize, got: usize, want: usize| {
        if got == want {
            Ok(())
        } else {
            Err(invalid(format!("{what} {k} has {got} bytes, not {want}")))
        }
    };
    match desc.kind {
        CollectiveKind::ReplicaId | CollectiveKind::PartitionId => {
            let v = match desc.kind {
                CollectiveKind::ReplicaId => me / ctx.topology.partitions,
                _ => me % ctx.topology.partitions,
            } as u32;
            let out = outs
                .first_mut()
                .ok_or_else(|| invalid("no result buffer".into()))?;
            if out.len() != 4 {
                return Err(invalid(format!("a u32 result of {} bytes", out.len())));
            }
            out.copy_from_slice(&v.to_ne_bytes());
            return Ok(());
        }
        _ => {}
    }
    if ins.len() != desc.operands.len() {
        return Err(invalid(format!(
            "{} operand buffers for {} operands",
            ins.len(),
            desc.operands.len()
        )));
    }
    for (k, (b, d)) in ins.iter().zip(&desc.operands).enumerate() {
        check_len("operand", k, b.len(), byte_len(desc, d))?;
    }
    // One operand (the common case) is exchanged from its own buffer.
    let mine: std::borrow::Cow<[u8]> = match ins {
        [one] => std::borrow::Cow::Borrowed(one),
        _ => std::borrow::Cow::Owned(ins.concat()),
    };
    let per = mine.len();
    let all = ctx.comm.all_gather(ctx.rank, &desc.name, &mine)?;
    let n = ctx.comm.size();
    if all.len() != per * n {
        return Err(invalid(format!(
            "the exchange returned {} bytes for {n} devices of {per}",
            all.len()
        )));
    }
    let of = |d: i64| &all[d as usize * per..(d as usize + 1) * per];
    // This device's group and its place in it.
    let group = || -> Result<(&[i64], usize), CollectiveError> {
        for g in &desc.groups {
            if let Some(p) = g.iter().position(|&d| d == me) {
                return Ok((g.as_slice(), p));
            }
        }
        Err(invalid(format!(
            "device {me} is in none of its replica groups"
        )))
    };
    let es = desc.ty.byte_size();
    match &desc.kind {
        CollectiveKind::AllReduce(r) => {
            let (g, _) = group()?;
            if outs.len() != ins.len() {
                return Err(invalid(format!(
                    "{} results for {} operands",
                    outs.len(),
                    ins.len()
                )));
            }
            let mut off = 0;
            for (k, out) in outs.iter_mut().enumerate() {
                let len = ins[k].len();
                check_len("result", k, out.len(), len)?;
                out.copy_from_slice(&of(g[0])[off..off + len]);
                for &d in &g[1..] {
                    reduce_into(*r, desc.ty, out, &of(d)[off..off + len]).map_err(&buffers)?;
                }
                off += len;
            }
        }
        CollectiveKind::AllGather { dim } => {
            let (g, _) = group()?;
            let dims = &desc.operands[0];
            let (outer, chunk) = split_at_dim(dims, *dim, es).map_err(&buffers)?;
            let out = one_out(outs, per * g.len()).map_err(&buffers)?;
            let mut w = 0;
            for o in 0..outer {
                for &d in g {
                    out[w..w + chunk].copy_from_slice(&of(d)[o * chunk..(o + 1) * chunk]);
                    w += chunk;
                }
            }
        }
        CollectiveKind::ReduceScatter { dim, reduce } => {
            let (g, p) = group()?;
            let mut sum = of(g[0]).to_vec();
            for &d in &g[1..] {
                reduce_into(*reduce, desc.ty, &mut sum, of(d)).map_err(&buffers)?;
            }
            let dims = &desc.operands[0];
            let parts = g.len();
            let out = one_out(outs, per / parts.max(1)).map_err(&buffers)?;
            take_part(&sum, dims, *dim, es, parts, p, out).map_err(&buffers)?;
        }
        CollectiveKind::AllToAll { split: Some(dim) } => {
            let (g, p) = group()?;
            let dims = &desc.operands[0];
            let parts = g.len();
            let (outer, chunk) = split_at_dim(dims, *dim, es).map_err(&buffers)?;
            let piece = chunk / parts.max(1);
            let out = one_out(outs, per).map_err(&buffers)?;
            // Result along `dim`: member j's piece p, for j in group order.
            let mut w = 0;
            for o in 0..outer {
                for &d in g {
                    let src = &of(d)[o * chunk + p * piece..o * chunk + (p + 1) * piece];
                    out[w..w + piece].copy_from_slice(src);
                    w += piece;
                }
            }
        }
        CollectiveKind::AllToAll { split: None } => {
            let (g, p) = group()?;
            if outs.len() != g.len() || ins.len() != g.len() {
                return Err(invalid(format!(
                    "a tuple all-to-all of {} operands in groups of {}",
                    ins.len(),
                    g.len()
                )));
            }
            let offs: Vec<usize> = ins
                .iter()
                .scan(0, |o, b| {
                    let s = *o;
                    *o += b.len();
                    Some(s)
                })
                .collect();
            for (j, out) in outs.iter_mut().enumerate() {
                let len = ins[p].len();
                check_len("result", j, out.len(), len)?;
                out.copy_from_slice(&of(g[j])[offs[p]..offs[p] + len]);
            }
        }
        CollectiveKind::Permute { pairs } => {
            let out = one_out(outs, per).map_err(&buffers)?;
            match pairs.iter().find(|&&(_, t)| t == me) {
                Some(&(s, _)) => out.copy_from_slice(of(s)),
                None => out.fill(0),
            }
        }
        CollectiveKind::Broadcast => {
            let (g, _) = group()?;
            let out = one_out(outs, per).map_err(&buffers)?;
            out.copy_from_slice(of(g[0]));
        }
        CollectiveKind::ReplicaId | CollectiveKind::PartitionId => {}
    }
    Ok(())
}

/// What is wrong with a collective's buffers or its element type: the
/// detail of [`CollectiveError::Invalid`] (which names the collective).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum BufferError {
    #[error("{count} result buffers, expected one")]
    ResultCount { count: usize },
    #[error("a result of {got} bytes, expected {want}")]
    ResultSize { got: usize, want: usize },
    #[error("dimension {dim} out of range for rank {rank}")]
    DimOutOfRange { dim: i64, rank: usize },
    #[error("dimension {dim} does not split into {parts} parts")]
    Indivisible { dim: i64, parts: usize },
    #[error(
        "a reduction of {acc} bytes with {x} bytes (the devices' contributions differ in size)"
    )]
    LengthMismatch { acc: usize, x: usize },
    #[error("{op} of {ty} elements is not a collective reduction hlox runs (and, or and xor take integers or pred)")]
    Unsupported { op: &'static str, ty: &'static str },
}

fn one_out<'a>(outs: &'a mut [&mut [u8]], len: usize) -> Result<&'a mut [u8], BufferError> {
    let count = outs.len();
    match outs {
        [o] => {
            if o.len() == len {
                Ok(&mut **o)
            } else {
                Err(BufferError::ResultSize {
                    got: o.len(),
                    want: len,
                })
            }
        }
        _ => Err(BufferError::ResultCount { count }),
    }
}

/// (outer count, bytes of one outer step) for slicing a row-major array
/// along `dim`.
fn split_at_dim(dims: &[i64], dim: i64, es: usize) -> Result<(usize, usize), BufferError> {
    let d = usize::try_from(dim)
        .ok()
        .filter(|&d| d < dims.len())
        .ok_or(BufferError::DimOutOfRange {
            dim,
            rank: dims.len(),
        })?;
    let outer: i64 = dims[..d].iter().product();
    let rest: i64 = dims[d..].iter().product();
    Ok((outer.max(0) as usize, rest.max(0) as usize * es))
}

/// Part `p` of `parts` of `src` along `dim`, into `out`.
fn take_part(
    src: &[u8],
    dims: &[i64],
    dim: i64,
    es: usize,
    parts: usize,
    p: usize,
    out: &mut [u8],
) -> Result<(), BufferError> {
    let (outer, chunk) = split_at_dim(dims, dim, es)?;
    if parts == 0 || !(dims[dim as usize].max(0) as usize).is_multiple_of(parts) {
        return Err(BufferError::Indivisible { dim, parts });
    }
    let piece = chunk / parts;
    if src.len() < outer * chunk || out.len() < outer * piece {
        return Err(BufferError::ResultSize {
            got: out.len(),
            want: outer * piece,
        });
    }
    for o in 0..outer {
        out[o * piece..(o + 1) * piece]
            .copy_from_slice(&src[o * chunk + p * piece..o * chunk + (p + 1) * piece]);
    }
    Ok(())
}

/// An element type as bytes: loads and stores in native byte order at
/// any alignment (the exchanged buffers are byte vectors).
trait Elem: Copy {
    const SIZE: usize;
    fn load(b: &[u8]) -> Self;
    fn store(self, b: &mut [u8]);
}

macro_rules! elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn load(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(b);
                <$t>::from_ne_bytes(a)
            }
            #[inline(always)]
            fn store(self, b: &mut [u8]) {
                b.copy_from_slice(&self.to_ne_bytes());
            }
        }
    )*};
}
elem!(
    f32,
    f64,
    half::f16,
    half::bf16,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64
);

/// `acc[i] = f(acc[i], x[i])`. One loop per (type, operation), with the
/// operation chosen outside it, so the optimizer vectorizes the common
/// float and integer sums (the choice per element made it ten times
/// slower; docs/performance.md).
#[inline(always)]
fn zip_apply<T: Elem>(acc: &mut [u8], x: &[u8], f: impl Fn(T, T) -> T) {
    for (a, b) in acc.chunks_exact_mut(T::SIZE).zip(x.chunks_exact(T::SIZE)) {
        f(T::load(a), T::load(b)).store(a);
    }
}

// `a != a`: NaN, for any float type (f16, bf16 included).
#[allow(clippy::eq_op)]
#[inline(always)]
fn fmax<T: PartialOrd + Copy>(a: T, b: T) -> T {
    // NaN propagates, as XLA's maximum.
    if a != a || a > b {
        a
    } else {
        b
    }
}
#[allow(clippy::eq_op)]
#[inline(always)]
fn fmin<T: PartialOrd + Copy>(a: T, b: T) -> T {
    if a != a || a < b {
        a
    } else {
        b
    }
}

/// `acc = acc (op) x` element-wise, for element type `ty`.
pub fn reduce_into(
    r: ReduceKind,
    ty: ElementType,
    acc: &mut [u8],
    x: &[u8],
) -> Result<(), BufferError> {
    use half::{bf16, f16};
    use ElementType as T;
    if acc.len() != x.len() {
        return Err(BufferError::LengthMismatch {
            acc: acc.len(),
            x: x.len(),
        });
    }
    let unsupported = || BufferError::Unsupported {
        op: r.name(),
        ty: ty.name(),
    };
    macro_rules! float {
        ($t:ty) => {
            match r {
                ReduceKind::Add => zip_apply::<$t>(acc, x, |a, b| a + b),
                ReduceKind::Mul => zip_apply::<$t>(acc, x, |a, b| a * b),
                ReduceKind::Max => zip_apply::<$t>(acc, x, fmax),
                ReduceKind::Min => zip_apply::<$t>(acc, x, fmin),
                _ => return Err(unsupported()),
            }
        };
    }
    macro_rules! int {
        ($t:ty) => {
            match r {
                ReduceKind::Add => zip_apply::<$t>(acc, x, |a, b| a.wrapping_add(b)),
                ReduceKind::Mul => zip_apply::<$t>(acc, x, |a, b| a.wrapping_mul(b)),
                ReduceKind::Max => zip_apply::<$t>(acc, x, |a, b| a.max(b)),
                ReduceKind::Min => zip_apply::<$t>(acc, x, |a, b| a.min(b)),
                ReduceKind::And => zip_apply::<$t>(acc, x, |a, b| a & b),
                ReduceKind::Or => zip_apply::<$t>(acc, x, |a, b| a | b),
                ReduceKind::Xor => zip_apply::<$t>(acc, x, |a, b| a ^ b),
            }
        };
    }
    match ty {
        T::F32 => float!(f32),
        T::F64 => float!(f64),
        T::F16 => float!(f16),
        T::Bf16 => float!(bf16),
        T::S8 => int!(i8),
        T::S16 => int!(i16),
        T::S32 => int!(i32),
        T::S64 => int!(i64),
        T::U8 | T::Pred => int!(u8),
        T::U16 => int!(u16),
        T::U32 => int!(u32),
        T::U64 => int!(u64),
        #[allow(unreachable_patterns)]
        _ => return Err(unsupported()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(
        kind: CollectiveKind,
        operands: Vec<Vec<i64>>,
        groups: Vec<Vec<i64>>,
    ) -> CollectiveDesc {
        CollectiveDesc {
            name: "c".into(),
            kind,
            ty: ElementType::F32,
            operands,
            groups,
        }
    }

    /// Runs `desc` on `n` threads; device d's operand is `input(d)`.
    fn run(
        n: usize,
        d: &CollectiveDesc,
        input: impl Fn(usize) -> Vec<f32> + Sync,
        out_len: usize,
    ) -> Vec<Vec<f32>> {
        let comm: Arc<dyn Communicator> = Arc::new(InProcess::new(n, Duration::from_secs(10)));
        std::thread::scope(|s| {
            let hs: Vec<_> = (0..n)
                .map(|rank| {
                    let comm = comm.clone();
                    let input = &input;
                    s.spawn(move || {
                        let ctx = DeviceContext {
                            rank,
                            topology: Topology {
                                replicas: 1,
                                partitions: n as i64,
                            },
                            comm,
                        };
                        with_device(ctx, || {
                            let x: Vec<u8> =
                                input(rank).iter().flat_map(|v| v.to_ne_bytes()).collect();
                            let mut out = vec![0u8; out_len * 4];
                            run_collective(d, &[&x], &mut [&mut out]).unwrap();
                            out.chunks(4)
                                .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
                                .collect()
                        })
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        })
    }

    #[test]
    fn all_reduce_gather_scatter_permute() {
        let all = vec![vec![0, 1, 2, 3]];
        let r = run(
            4,
            &desc(
                CollectiveKind::AllReduce(ReduceKind::Add),
                vec![vec![2]],
                all.clone(),
            ),
            |d| vec![d as f32, 1.0],
            2,
        );
        assert!(r.iter().all(|v| v == &vec![6.0, 4.0]));
        let r = run(
            4,
            &desc(
                CollectiveKind::AllReduce(ReduceKind::Max),
                vec![vec![1]],
                vec![vec![0, 1], vec![2, 3]],
            ),
            |d| vec![d as f32],
            1,
        );
        assert_eq!(r, vec![vec![1.0], vec![1.0], vec![3.0], vec![3.0]]);
        // [2,1] per device gathered along dim 1: [2,4].
        let r = run(
            4,
            &desc(
                CollectiveKind::AllGather { dim: 1 },
                vec![vec![2, 1]],
                all.clone(),
            ),
            |d| vec![d as f32, 10.0 + d as f32],
            8,
        );
        assert_eq!(r[0], vec![0.0, 1.0, 2.0, 3.0, 10.0, 11.0, 12.0, 13.0]);
        let r = run(
            4,
            &desc(
                CollectiveKind::ReduceScatter {
                    dim: 0,
                    reduce: ReduceKind::Add,
                },
                vec![vec![4]],
                all.clone(),
            ),
            |_| vec![1.0, 2.0, 3.0, 4.0],
            1,
        );
        assert_eq!(r, vec![vec![4.0], vec![8.0], vec![12.0], vec![16.0]]);
        let r = run(
            4,
            &desc(
                CollectiveKind::Permute {
                    pairs: vec![(0, 1), (1, 2), (2, 3)],
                },
                vec![vec![1]],
                all.clone(),
            ),
            |d| vec![d as f32 + 1.0],
            1,
        );
        assert_eq!(r, vec![vec![0.0], vec![1.0], vec![2.0], vec![3.0]]);
        // all-to-all of [4] on 4 devices: a transpose of the 4x4 matrix.
        let r = run(
            4,
            &desc(
                CollectiveKind::AllToAll { split: Some(0) },
                vec![vec![4]],
                all,
            ),
            |d| (0..4).map(|j| (d * 4 + j) as f32).collect(),
            4,
        );
        assert_eq!(r[1], vec![1.0, 5.0, 9.0, 13.0]);
    }

    fn bytes<T: Elem>(v: &[T]) -> Vec<u8> {
        let mut b = vec![0u8; v.len() * T::SIZE];
        for (x, c) in v.iter().zip(b.chunks_exact_mut(T::SIZE)) {
            x.store(c);
        }
        b
    }

    #[test]
    fn reductions_of_every_kind_and_their_errors() {
        let mut a = bytes(&[1.5f32, f32::NAN, -2.0]);
        reduce_into(
            ReduceKind::Max,
            ElementType::F32,
            &mut a,
            &bytes(&[2.0f32, 1.0, -3.0]),
        )
        .unwrap();
        let got: Vec<f32> = a.chunks_exact(4).map(f32::load).collect();
        assert_eq!(got[0], 2.0);
        assert!(got[1].is_nan(), "NaN propagates through maximum");
        assert_eq!(got[2], -2.0);
        let mut a = bytes(&[i32::MAX, 0b1100]);
        reduce_into(
            ReduceKind::Add,
            ElementType::S32,
            &mut a,
            &bytes(&[1i32, 0]),
        )
        .unwrap();
        reduce_into(
            ReduceKind::Xor,
            ElementType::S32,
            &mut a,
            &bytes(&[0i32, 0b1010]),
        )
        .unwrap();
        let got: Vec<i32> = a.chunks_exact(4).map(i32::load).collect();
        assert_eq!(got, vec![i32::MIN, 0b0110], "wrapping add, then xor");
        let mut a = bytes(&[half::bf16::from_f32(1.5)]);
        reduce_into(
            ReduceKind::Mul,
            ElementType::Bf16,
            &mut a,
            &bytes(&[half::bf16::from_f32(-2.0)]),
        )
        .unwrap();
        assert_eq!(half::bf16::load(&a).to_f32(), -3.0);
        // Unaligned buffers (the exchange's byte vectors) reduce too.
        let mut raw = [0u8; 9];
        raw[1..].copy_from_slice(&bytes(&[1.0f64]));
        reduce_into(
            ReduceKind::Add,
            ElementType::F64,
            &mut raw[1..],
            &bytes(&[2.0f64]),
        )
        .unwrap();
        assert_eq!(f64::load(&raw[1..]), 3.0);
        assert_eq!(
            reduce_into(
                ReduceKind::Xor,
                ElementType::F32,
                &mut bytes(&[1f32]),
                &bytes(&[1f32])
            ),
            Err(BufferError::Unsupported {
                op: "xor",
                ty: "f32"
            })
        );
        let e = reduce_into(ReduceKind::Add, ElementType::F32, &mut [0u8; 8], &[0u8; 4])
            .unwrap_err()
            .to_string();
        assert!(e.contains("8 bytes with 4 bytes"), "{e}");
    }

    #[test]
    fn a_bad_result_buffer_names_the_collective() {
        let d = desc(
            CollectiveKind::AllGather { dim: 0 },
            vec![vec![2]],
            vec![vec![0]],
        );
        let comm: Arc<dyn Communicator> = Arc::new(InProcess::new(1, Duration::from_secs(5)));
        let ctx = DeviceContext {
            rank: 0,
            topology: Topology {
                replicas: 1,
                partitions: 1,
            },
            comm,
        };
        let e = with_device(ctx, || {
            run_collective(&d, &[&[0u8; 8]], &mut [&mut [0u8; 4]]).unwrap_err()
        });
        assert_eq!(
            e.to_string(),
            "collective c: a result of 4 bytes, expected 8"
        );
    }

    #[test]
    fn a_missing_device_times_out_with_its_name() {
        let comm = Arc::new(InProcess::new(3, Duration::from_millis(200)));
        let c2 = comm.clone();
        let h = std::thread::spawn(move || c2.all_gather(1, "ar", &[1]));
        let e = comm.all_gather(0, "ar", &[0]).unwrap_err();
        let e1 = h.join().unwrap().unwrap_err();
        let both = format!("{e} / {e1}");
        assert!(both.contains("[2] did not arrive"), "{both}");
    }

    #[test]
    fn abort_wakes_waiting_devices() {
        let comm = Arc::new(InProcess::new(2, Duration::from_secs(30)));
        let c2 = comm.clone();
        let h = std::thread::spawn(move || c2.all_gather(0, "ar", &[1]));
        std::thread::sleep(Duration::from_millis(50));
        comm.abort(1, "custom call boom failed");
        let e = h.join().unwrap().unwrap_err().to_string();
        assert!(
            e.contains("device 1 failed: custom call boom failed"),
            "{e}"
        );
    }
}
