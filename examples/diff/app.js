// The program examples/diff/ captures twice: `node app.js before` and `node app.js after`, the
// second with a change a profile should show (README.md says how each file was made).
// before: a request tokenizes, evaluates (recursion 9 deep) and renders 2000 digits;
// after:  the evaluator got cheaper (8 deep), the renderer dearer (4000 digits), and a
//         validate() step was added.
const after = process.argv[2] === 'after';
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
  for (let i = 0; i < (after ? 4000 : 2000); i++) s += (value * i).toFixed(3).slice(-4);
  return s.length;
}
function validate(tokens) {
  let ok = 0;
  for (let k = 0; k < 200; k++) for (const t of tokens) ok += t.op ? 1 : 0;
  return ok;
}
function handleRequest(n) {
  const tokens = tokenize('1 + 2 * 3 - 4 / 5 + 6 * 7 - 8 + 9 '.repeat(4));
  const v = evaluate(tokens, after ? 8 : 9);
  return render(v) + (after ? validate(tokens) : 0) + n;
}
async function main() {
  let total = 0;
  const end = Date.now() + 400;
  for (let n = 0; Date.now() < end; n++) {
    total += handleRequest(n);
    if (n % 8 === 0) await new Promise((r) => setTimeout(r, 1));
  }
  console.log(total > 0 ? 'done' : 'none');
}
main();
