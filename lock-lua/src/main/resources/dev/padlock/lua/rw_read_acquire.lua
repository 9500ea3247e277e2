-- rw_read_acquire: take or re-enter the read lock of a read-write lock.
--
-- KEYS[1]  the lock: a hash with field mode = read|write, one field per reader
--          <clientId>:<threadId> -> hold count, and the writer's <clientId>:<threadId>:write
-- KEYS[2]  this reader's lease prefix, {<name>}:<clientId>:<threadId>:rwlock_timeout; hold n
--          has its own lease, the key KEYS[2]:n
-- KEYS[3]  the holders' since, padlock_since:{<name>} (see lock_claim): a reader's first hold sets
--          its entry (epoch ms, Redis TIME); the hash lives as long as the lock
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  reader field, <clientId>:<threadId>
-- ARGV[3]  the same owner's writer field, <clientId>:<threadId>:write
--
-- Returns  nil when acquired: free, read mode, or write mode held by this same owner (a
--          downgrade); otherwise the lock's PTTL in milliseconds.
-- Publishes nothing. The hash lives as long as its longest lease. Redisson's RReadWriteLock format.
if redis.replicate_commands then
    redis.replicate_commands()
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false or mode == 'read' or redis.call('hexists', KEYS[1], ARGV[3]) == 1 then
    if mode == false then
        redis.call('hset', KEYS[1], 'mode', 'read')
    end
    local hold = redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('set', KEYS[2] .. ':' .. hold, 1, 'px', ARGV[1])
    local lease = math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1]))
    redis.call('pexpire', KEYS[1], lease)
    if hold == 1 then
        local t = redis.call('time')
        redis.call('hset', KEYS[3], ARGV[2], t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000)))
    end
    redis.call('pexpire', KEYS[3], lease)
    return nil
end
return redis.call('pttl', KEYS[1])
