//! The seeded text source of the generated notes: a splitmix64 PRNG, and an order-2 word Markov
//! chain trained on the English prose of the real chunks kept, its words interned as `u32` ids so
//! that drawing a word allocates nothing.
//!
//! Training reads a chunk's prose paragraphs ([`super::prose::prose_paragraphs`]) and keeps only
//! plain words: ASCII letters, digits and prose punctuation, with Markdown emphasis and code
//! marks taken off their ends; any other word (a URL, inline code with braces, CJK text) breaks
//! the run, so the chain never learns a transition across it. The transitions are sorted before
//! the chain is built, so it does not depend on hash-map order.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::prose::prose_paragraphs;

/// splitmix64: the one source of randomness of a vault, seeded with `--seed`.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0), by multiply-shift.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A multiply-rotate hasher for the chain's `u64` state keys: SipHash would be most of the cost
/// of drawing a word.
#[derive(Debug, Default)]
struct StateHasher(u64);

impl Hasher for StateHasher {
    fn write(&mut self, bytes: &[u8]) {
        bytes.iter().for_each(|&b| self.write_u64(u64::from(b)));
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type StateMap = HashMap<u64, (u32, u32), BuildHasherDefault<StateHasher>>;

fn key(a: u32, b: u32) -> u64 {
    (u64::from(a) << 32) | u64::from(b)
}

/// A word as the chain learns it, or `None` for one that breaks the run.
fn clean_word(word: &str) -> Option<&str> {
    let word = word.trim_matches(['*', '_', '`']);
    let allowed = |b: u8| b.is_ascii_alphanumeric() || b".,;:!?'\"-()/&%+_@$".contains(&b);
    let plain = !word.is_empty()
        && word.len() <= 30
        && word.bytes().all(allowed)
        && word.bytes().any(|b| b.is_ascii_alphabetic())
        && !word.contains("://");
    plain.then_some(word)
}

/// What the chain is trained on, gathered chunk by chunk.
#[derive(Debug, Default)]
pub struct ChainBuilder {
    ids: HashMap<Box<str>, u32>,
    words: Vec<Box<str>>,
    counts: Vec<u32>,
    /// `(a, b, c)`: word `c` followed `a b`.
    triples: Vec<(u32, u32, u32)>,
    /// Word pairs that start a paragraph or a sentence.
    starts: Vec<(u32, u32)>,
    prose_words: u64,
}

impl ChainBuilder {
    fn intern(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.ids.get(word) {
            self.counts[id as usize] += 1;
            return id;
        }
        let id = u32::try_from(self.words.len()).expect("fewer than 2^32 words");
        self.ids.insert(word.into(), id);
        self.words.push(word.into());
        self.counts.push(1);
        id
    }

    /// Learns the prose of one chunk's text.
    pub fn add_text(&mut self, text: &str) {
        let mut run: Vec<u32> = Vec::new();
        prose_paragraphs(text, |words| {
            for word in words {
                match clean_word(word) {
                    Some(word) => {
                        let id = self.intern(word);
                        run.push(id);
                    }
                    None => self.learn(&mut run),
                }
            }
            self.learn(&mut run);
        });
    }

    /// Learns one run of plain words and empties it.
    fn learn(&mut self, run: &mut Vec<u32>) {
        self.prose_words += run.len() as u64;
        if run.len() >= 3 {
            self.starts.push((run[0], run[1]));
            for (i, w) in run.windows(3).enumerate() {
                self.triples.push((w[0], w[1], w[2]));
                let ends_sentence = self.words[w[0] as usize].ends_with(['.', '!', '?']);
                if ends_sentence && i + 3 < run.len() {
                    self.starts.push((w[1], w[2]));
                }
            }
        }
        run.clear();
    }

    pub fn build(mut self) -> Chain {
        self.triples.sort_unstable();
        let mut next = StateMap::default();
        let mut successors = Vec::with_capacity(self.triples.len());
        for group in self.triples.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
            let start = successors.len() as u32;
            successors.extend(group.iter().map(|t| t.2));
            next.insert(key(group[0].0, group[0].1), (start, group.len() as u32));
        }
        let tags = tag_words(&self.words, &self.counts);
        Chain {
            words: self.words,
            next,
            successors,
            starts: self.starts,
            prose_words: self.prose_words,
            tags,
        }
    }
}

/// About fifty words for tags: all-lowercase words of 4 to 12 letters, by how often the prose
/// uses them, past the hundred commonest (which are mostly words like "which" and "should").
fn tag_words(words: &[Box<str>], counts: &[u32]) -> Vec<String> {
    let mut candidates: Vec<(u32, &str)> = words
        .iter()
        .zip(counts)
        .filter(|(w, _)| (4..=12).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_lowercase()))
        .map(|(w, &n)| (n, &**w))
        .collect();
    candidates.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(y.1)));
    let skip = (candidates.len() / 2).min(100);
    candidates
        .iter()
        .skip(skip)
        .take(50)
        .map(|(_, w)| w.to_string())
        .collect()
}

/// The trained chain: for each pair of words, the words seen after it (repeats kept, so a draw
/// follows their frequency).
#[derive(Debug)]
pub struct Chain {
    words: Vec<Box<str>>,
    next: StateMap,
    successors: Vec<u32>,
    starts: Vec<(u32, u32)>,
    prose_words: u64,
    tags: Vec<String>,
}

impl Chain {
    /// True when the prose held no run of three plain words: nothing can be drawn.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Plain words the chain was trained on.
    pub fn prose_words(&self) -> u64 {
        self.prose_words
    }

    /// Word pairs with at least one successor.
    pub fn states(&self) -> usize {
        self.next.len()
    }

    /// The fixed list the notes' tags are drawn from.
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    pub fn word(&self, id: u32) -> &str {
        &self.words[id as usize]
    }

    /// Draws `n` words into `out` (emptied first): from a random start pair, each next word from
    /// the pair before it, and from a fresh start pair where a pair was never followed.
    pub fn draw(&self, rng: &mut Rng, n: usize, out: &mut Vec<u32>) {
        out.clear();
        let (mut a, mut b) = (0, 0);
        while out.len() < n {
            let found = if out.len() < 2 { None } else { self.next.get(&key(a, b)) };
            match found {
                Some(&(start, len)) => {
                    let c = self.successors[start as usize + rng.below(len as usize)];
                    out.push(c);
                    (a, b) = (b, c);
                }
                None => {
                    (a, b) = self.starts[rng.below(self.starts.len())];
                    out.extend([a, b]);
                }
            }
        }
        out.truncate(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROSE: &str = "The backup runs every night and the restore is tested weekly. \
                         The restore takes an hour when the backup is large.\n\n\
                         Every night the backup `job` writes a **report** to https://x.y/z and stops.";

    fn chain() -> Chain {
        let mut builder = ChainBuilder::default();
        builder.add_text(PROSE);
        builder.build()
    }

    #[test]
    fn vault_rng_is_seeded_and_in_range() {
        let (mut a, mut b, mut c) = (Rng::new(1), Rng::new(1), Rng::new(2));
        let xs: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        assert_eq!(xs, (0..8).map(|_| b.next_u64()).collect::<Vec<_>>());
        assert_ne!(xs, (0..8).map(|_| c.next_u64()).collect::<Vec<_>>());
        for _ in 0..1000 {
            assert!((3..=5).contains(&a.range(3, 5)));
            assert!(a.below(7) < 7);
        }
    }

    #[test]
    fn vault_chain_learns_plain_words_only() {
        let chain = chain();
        assert!(!chain.is_empty());
        let words: Vec<&str> = (0..chain.words.len() as u32).map(|id| chain.word(id)).collect();
        assert!(words.contains(&"job") && words.contains(&"report"), "marks taken off");
        assert!(!words.iter().any(|w| w.contains("://")), "{words:?}");
        // The URL breaks the run: "to" is never followed by "and".
        let id = |word: &str| words.iter().position(|w| *w == word).unwrap() as u32;
        let (to, and) = (id("to"), id("and"));
        assert!(!chain.next.contains_key(&key(id("report"), to)));
        assert!(!chain.next.contains_key(&key(to, and)));
    }

    #[test]
    fn vault_chain_draws_are_deterministic() {
        let chain = chain();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        chain.draw(&mut Rng::new(5), 40, &mut a);
        chain.draw(&mut Rng::new(5), 40, &mut b);
        assert_eq!(a.len(), 40);
        assert_eq!(a, b);
    }
}
