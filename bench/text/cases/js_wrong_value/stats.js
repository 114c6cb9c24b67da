'use strict';

function mean(xs) {
  if (xs.length === 0) return 0;
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function histogram(xs, buckets) {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const width = (hi - lo) / buckets || 1;
  const counts = new Array(buckets).fill(0);
  for (const x of xs) {
    const i = Math.min(buckets - 1, Math.floor((x - lo) / width));
    counts[i] += 1;
  }
  return counts;
}

function checksum(values) {
  let h = 17;
  for (const v of values) {
    h = (h * 31 + v) % 100003;
  }
  return h;
}

function series(n, seed) {
  const out = [];
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103 + 12345) % 4096;
    out.push(x % 97);
  }
  return out;
}

const data = series(40, 7);
const report = {
  mean: mean(data).toFixed(3),
  median: median(data),
  hist: histogram(data, 5),
};
console.log(JSON.stringify(report));
const words = ['alpha', 'beta', 'gamma', 'delta'];
const lengths = words.map((w) => w.length);
console.log('lengths', lengths.join(','));
console.log('checksum', checksum(data));
