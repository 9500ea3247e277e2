-- fenced_acquire: take a reentrant lock, or re-enter it, and get its fencing token.
--
-- KEYS[1]  the lock: a hash of <clientId>:<threadId> -> hold count (RLock's format)
-- KEYS[2]  the token counter, redisson_lock_token:{<name>}; never expires
-- ARGV[1]  lease in milliseconds (PEXPIRE)
-- ARGV[2]  owner field, <clientId>:<threadId>
--
-- Returns  {1, token} when acquired: a first hold increments the counter and gets its new
--          value; a re-entry keeps the token it has (the counter's value, which only a new
--          holder moves). {0, pttl} when the lock is held by another owner (-1: no expiry).
-- Publishes nothing.
if redis.call('exists', KEYS[1]) == 0 then
    local token = redis.call('incr', KEYS[2])
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return {1, token}
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return {1, tonumber(redis.call('get', KEYS[2])) or 0}
end
return {0, redis.call('pttl', KEYS[1])}
