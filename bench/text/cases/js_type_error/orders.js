'use strict';

const TAX_RATES = { de: 0.19, fr: 0.2, us: 0.07, jp: 0.1 };

class Customer {
  constructor(id, name, country, tier = 'basic') {
    this.id = id;
    this.name = name;
    this.country = country;
    this.tier = tier;
  }

  discount() {
    switch (this.tier) {
      case 'gold': return 0.1;
      case 'silver': return 0.05;
      default: return 0;
    }
  }
}

class Order {
  constructor(id, customer, lines) {
    this.id = id;
    this.customer = customer;
    this.lines = lines;
  }

  subtotal() {
    return this.lines.reduce((sum, l) => sum + l.qty * l.price, 0);
  }

  tax() {
    const rate = TAX_RATES[this.customer.country] ?? 0;
    return Math.round(this.subtotal() * rate * 100) / 100;
  }

  total() {
    const base = this.subtotal() * (1 - this.customer.discount());
    return Math.round((base + this.tax()) * 100) / 100;
  }
}

function groupBy(items, key) {
  const out = new Map();
  for (const item of items) {
    const k = key(item);
    if (!out.has(k)) out.set(k, []);
    out.get(k).push(item);
  }
  return out;
}

function summarize(orders, customers) {
  const byCustomer = groupBy(orders, (o) => o.customer.id);
  const rows = [];
  for (const c of customers) {
    const mine = byCustomer.get(c.id) || [];
    const spent = mine.reduce((s, o) => s + o.total(), 0);
    rows.push({ name: c.name, orders: mine.length, spent: spent.toFixed(2) });
  }
  rows.sort((a, b) => b.spent - a.spent);
  return rows;
}

function loyalty(orders) {
  const stats = {};
  for (const o of orders) {
    const key = o.customer.tier;
    stats[key] = stats[key] || { count: 0, total: 0 };
    stats[key].count += 1;
    stats[key].total += o.total();
  }
  return stats;
}

const customers = [
  new Customer(1, 'Ada', 'de', 'gold'),
  new Customer(2, 'Bo', 'us'),
  new Customer(3, 'Cy', 'jp', 'silver'),
];

const orders = [
  new Order(10, customers[0], [{ qty: 2, price: 9.5 }, { qty: 1, price: 30 }]),
  new Order(11, customers[1], [{ qty: 5, price: 3.2 }]),
  new Order(12, customers[2], [{ qty: 1, price: 120 }]),
  new Order(13, customers[0], [{ qty: 3, price: 4 }]),
];

console.log(summarize(orders, customers));
const stats = loyalty(orders);
console.log('gold', stats.gold.count, stats.gold.total.toFixed(2));
console.log('platinum', stats.platinum.total.toFixed(2));
