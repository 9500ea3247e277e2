-- rw_read_acquire: take or re-enter the read lock of a read-write lock.
--
-- KEYS[1]  the lock: a hash with field mode = read|write, one field per reader
--          <clientId>:<threadId> -> hold count, and the writer's <clientId>:<threadId>:write
-- KEYS[2]  this reader's lease prefix, {<name>}:<clientId>:<threadId>:rwlock_timeout; hold n
--          has its own lease, the key KEYS[2]:n
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  reader field, <clientId>:<threadId>
-- ARGV[3]  the same owner's writer field, <clientId>:<threadId>:write
--
-- Returns  nil when acquired: free, read mode, or write mode held by this same owner (a
--          downgrade); otherwise the lock's PTTL in milliseconds.
-- Publishes nothing. The hash lives as long as its longest lease. Redisson's RReadWriteLock format.
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false or mode == 'read' or redis.call('hexists', KEYS[1], ARGV[3]) == 1 then
    if mode == false then
        redis.call('hset', KEYS[1], 'mode', 'read')
    end
    local hold = redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('set', KEYS[2] .. ':' .. hold, 1, 'px', ARGV[1])
    redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1])))
    return nil
end
return redis.call('pttl', KEYS[1])
