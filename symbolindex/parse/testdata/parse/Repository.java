package com.example.store;

import java.util.HashMap;
import java.util.Map;

/**
 * An in-memory repository.
 *
 * @param <T> the item type
 */
@Deprecated
public class Repository<T> implements Store<T> {
    private final Map<String, T> items = new HashMap<>();

    /** Creates an empty repository. */
    public Repository() {
    }

    // Finds an item by id.
    @Override
    public T find(String id) {
        return items.get(id);
    }

    static class Entry {
        void touch() {}

        enum State { NEW, OLD; boolean fresh() { return this == NEW; } }
    }

    record Pair(String key, T value) {}
}

interface Store<T> {
    T find(String id);
}
