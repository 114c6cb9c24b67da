use std::collections::HashMap;
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Category {
    Tool,
    Part,
    Consumable { shelf_life_days: u32 },
}

#[derive(Debug, Clone)]
pub struct Item {
    pub name: String,
    pub category: Category,
    pub quantity: u32,
    pub unit_price_cents: u64,
}

impl Item {
    pub fn new(name: &str, category: Category, quantity: u32, unit_price_cents: u64) -> Self {
        Item { name: name.to_string(), category, quantity, unit_price_cents }
    }

    pub fn value(&self) -> u64 {
        self.quantity as u64 * self.unit_price_cents
    }

    pub fn is_perishable(&self) -> bool {
        matches!(self.category, Category::Consumable { .. })
    }
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} x{} @ {}", self.name, self.quantity, self.unit_price_cents)
    }
}

pub struct Inventory {
    items: HashMap<String, Item>,
    log: Vec<String>,
}

impl Inventory {
    pub fn new() -> Self {
        Inventory { items: HashMap::new(), log: Vec::new() }
    }

    pub fn add(&mut self, item: Item) {
        self.log.push(format!("add {}", item.name));
        self.items.insert(item.name.clone(), item);
    }

    pub fn remove(&mut self, name: &str, count: u32) -> Option<u32> {
        let item = self.items.get_mut(name)?;
        if item.quantity < count {
            return None;
        }
        item.quantity -= count;
        self.log.push(format!("remove {} {}", name, count));
        Some(item.quantity)
    }

    pub fn total_value(&self) -> u64 {
        self.items.values().map(|i| i.value()).sum()
    }

    pub fn perishable_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .items
            .values()
            .filter(|i| i.is_perishable())
            .map(|i| i.name.as_str())
            .collect();
        names.sort();
        names
    }

    pub fn report(&self) -> String {
        let mut lines = Vec::new();
        for (name, item) in &self.items {
            let label: String = if item.quantity > 10 { item.quantity } else { name.clone() };
            lines.push(format!("{}: {}", label, item));
        }
        lines.join("\n")
    }
}

pub fn restock(inventory: &mut Inventory, names: &[&str], amount: u32) -> usize {
    let mut restocked = 0;
    for name in names {
        if let Some(item) = inventory.items.get_mut(*name) {
            item.quantity += amount;
            restocked += 1;
        }
    }
    restocked
}

pub fn demo() -> u64 {
    let mut inv = Inventory::new();
    inv.add(Item::new("hammer", Category::Tool, 3, 1299));
    inv.add(Item::new("bolt", Category::Part, 200, 15));
    inv.add(Item::new("glue", Category::Consumable { shelf_life_days: 365 }, 12, 450));
    inv.remove("bolt", 20);
    restock(&mut inv, &["hammer", "saw"], 2);
    println!("{}", inv.report());
    println!("{:?}", inv.perishable_names());
    inv.total_value()
}
