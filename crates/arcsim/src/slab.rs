//! A slab of records with a free list: records are referred to by `u32` index, and a freed
//! slot is reused, so moving packets through a network never allocates once the slab has
//! grown to the most packets alive at once. Both engines keep their packets in one.

#[derive(Debug)]
pub struct Slab<T> {
    slots: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab {
            slots: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> Slab<T> {
    #[inline]
    pub fn alloc(&mut self, p: T) -> u32 {
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as u32
        }
    }
    #[inline]
    pub fn release(&mut self, id: u32) {
        self.free.push(id);
    }
    #[inline]
    pub fn get(&self, id: u32) -> &T {
        &self.slots[id as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut T {
        &mut self.slots[id as usize]
    }
    /// Records currently allocated.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
    /// High-water mark of simultaneously live records.
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}
