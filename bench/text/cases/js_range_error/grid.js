'use strict';

class Grid {
  constructor(width, height, fill = 0) {
    this.width = width;
    this.height = height;
    this.cells = new Array(width * height).fill(fill);
  }

  get(x, y) {
    return this.cells[y * this.width + x];
  }

  set(x, y, v) {
    this.cells[y * this.width + x] = v;
  }

  neighbours(x, y) {
    const out = [];
    for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      const nx = x + dx;
      const ny = y + dy;
      if (nx >= 0 && ny >= 0 && nx < this.width && ny < this.height) out.push([nx, ny]);
    }
    return out;
  }

  toString() {
    const rows = [];
    for (let y = 0; y < this.height; y++) {
      rows.push(this.cells.slice(y * this.width, (y + 1) * this.width).join(''));
    }
    return rows.join('\n');
  }
}

function flood(grid, x, y, colour) {
  const target = grid.get(x, y);
  if (target === colour) return 0;
  const stack = [[x, y]];
  let painted = 0;
  while (stack.length) {
    const [cx, cy] = stack.pop();
    if (grid.get(cx, cy) !== target) continue;
    grid.set(cx, cy, colour);
    painted += 1;
    stack.push(...grid.neighbours(cx, cy));
  }
  return painted;
}

function resize(grid, factor) {
  const w = Math.floor(grid.width * factor);
  const h = Math.floor(grid.height * factor);
  return new Grid(w - grid.width, h, 0);
}

const g = new Grid(6, 4);
g.set(2, 1, 1);
g.set(3, 1, 1);
console.log('painted', flood(g, 0, 0, 2));
console.log(g.toString());
const half = resize(g, 0.5);
console.log(half.width, half.height);
