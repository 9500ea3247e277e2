package dev.padlock.sim.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Channel subscriptions, PUBLISH's count of receivers and its deliveries: a subscriber counts once
 * per channel, deliveries go out in subscription order (a re-subscription goes last, as in a
 * channel's client list in Redis).
 */
final class PubSub {

    private final Map<String, LinkedHashSet<String>> subscribers = new HashMap<>();
    private final List<ModelRedis.Delivery> listeners = new ArrayList<>();
    private final List<ModelRedis.Published> published = new ArrayList<>();

    /** A copy with the same subscriptions and log, and no listeners. */
    PubSub copy() {
        PubSub copy = new PubSub();
        subscribers.forEach((channel, set) -> copy.subscribers.put(channel, new LinkedHashSet<>(set)));
        copy.published.addAll(published);
        return copy;
    }

    void subscribe(String subscriber, String channel) {
        subscribers.computeIfAbsent(channel, c -> new LinkedHashSet<>()).add(subscriber);
    }

    void unsubscribe(String subscriber, String channel) {
        LinkedHashSet<String> set = subscribers.get(channel);
        if (set != null && set.remove(subscriber) && set.isEmpty()) {
            subscribers.remove(channel);
        }
    }

    void unsubscribeAll(String subscriber) {
        subscribers.values().forEach(set -> set.remove(subscriber));
        subscribers.values().removeIf(LinkedHashSet::isEmpty);
    }

    void addListener(ModelRedis.Delivery listener) {
        listeners.add(listener);
    }

    /** How many subscribers {@code channel} has (PUBSUB NUMSUB). */
    long subscriberCount(String channel) {
        LinkedHashSet<String> set = subscribers.get(channel);
        return set == null ? 0 : set.size();
    }

    /** Publishes; returns how many subscribers it reached. */
    long publish(String channel, String message) {
        List<String> receivers = new ArrayList<>(subscribers.getOrDefault(channel, new LinkedHashSet<>()));
        published.add(new ModelRedis.Published(channel, message, receivers.size()));
        for (String subscriber : receivers) {
            for (ModelRedis.Delivery listener : listeners) {
                listener.deliver(subscriber, channel, message);
            }
        }
        return receivers.size();
    }

    List<ModelRedis.Published> published() {
        return List.copyOf(published);
    }
}
