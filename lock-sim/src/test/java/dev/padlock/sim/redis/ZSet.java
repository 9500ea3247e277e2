package dev.padlock.sim.redis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** A sorted set's value: members ordered by score, then by member (bytewise for ASCII). */
final class ZSet {

    /** One member and its score. */
    record Member(String name, double score) {
    }

    /** Redis compares scores with {@code <} and {@code ==}: -0.0 and 0.0 tie. */
    private static final Comparator<Member> ORDER = (a, b) -> a.score < b.score ? -1
            : a.score > b.score ? 1 : a.name.compareTo(b.name);

    private final Map<String, Double> scores = new HashMap<>();
    private final TreeSet<Member> ordered = new TreeSet<>(ORDER);

    ZSet copy() {
        ZSet copy = new ZSet();
        copy.scores.putAll(scores);
        copy.ordered.addAll(ordered);
        return copy;
    }

    int size() {
        return scores.size();
    }

    boolean isEmpty() {
        return scores.isEmpty();
    }

    Double score(String member) {
        return scores.get(member);
    }

    /** Adds or moves {@code member}; true when it was new. */
    boolean put(String member, double score) {
        Double old = scores.put(member, score);
        if (old != null) {
            ordered.remove(new Member(member, old));
        }
        ordered.add(new Member(member, score));
        return old == null;
    }

    boolean remove(String member) {
        Double old = scores.remove(member);
        if (old == null) {
            return false;
        }
        ordered.remove(new Member(member, old));
        return true;
    }

    /** The members in order, lowest score first. */
    List<Member> members() {
        return new ArrayList<>(ordered);
    }

    /** Member to score, in order. */
    Map<String, Double> asMap() {
        Map<String, Double> map = new LinkedHashMap<>();
        for (Member m : ordered) {
            map.put(m.name, m.score);
        }
        return map;
    }
}
