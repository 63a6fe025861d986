// A small CPU-bound program; `node --cpu-prof --cpu-prof-name=node_app.cpuprofile --cpu-prof-interval 1000 node_app.js`
// wrote examples/node_app.cpuprofile (node v20). A tokenizer, a recursive evaluator and a
// renderer, so that self and total time differ and one function recurses.
function tokenize(src) {
  const out = [];
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === ' ') continue;
    out.push(/[0-9]/.test(c) ? { num: +c } : { op: c });
  }
  return out;
}
function evaluate(tokens, depth) {
  if (depth === 0) return tokens.reduce((a, t) => a + (t.num || 0), 0);
  return evaluate(tokens, depth - 1) + evaluate(tokens.slice(1), depth - 1) * 0.5;
}
function render(value) {
  let s = '';
  for (let i = 0; i < 2000; i++) s += (value * i).toFixed(3).slice(-4);
  return s.length;
}
function handleRequest(n) {
  const tokens = tokenize('1 + 2 * 3 - 4 / 5 + 6 * 7 - 8 + 9 '.repeat(4));
  return render(evaluate(tokens, 9)) + n;
}
let total = 0;
const end = Date.now() + 600;
for (let n = 0; Date.now() < end; n++) total += handleRequest(n);
console.log(total > 0 ? 'done' : 'none');
