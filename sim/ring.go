package sim

// waiter is a queued Request or Acquire.
type waiter struct {
	h       Handler
	arg     int64
	service int64 // service time of a Request; acquireHold for an Acquire
	since   int64 // time the waiter joined the queue
	// owner and switchCost are RequestAs's (owner noOwner: a Request).
	owner      int32
	switchCost int64
}

// acquireHold marks a waiter that asked for an open-ended hold (Acquire)
// rather than a timed service (Request, whose service time is >= 0).
const acquireHold = -1

// waiterRing is a FIFO of waiters on a power-of-two ring buffer. It grows by
// doubling and never shrinks, so once a resource has seen its longest queue
// enqueueing allocates nothing.
type waiterRing struct {
	buf  []waiter
	head int // index of the oldest waiter
	n    int
}

func (r *waiterRing) len() int { return r.n }

func (r *waiterRing) push(w waiter) {
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = w
	r.n++
}

// pop removes the oldest waiter; the ring must not be empty.
func (r *waiterRing) pop() waiter {
	w := r.buf[r.head]
	r.buf[r.head] = waiter{} // release the Handler reference
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	return w
}

func (r *waiterRing) grow() {
	size := 2 * len(r.buf)
	if size == 0 {
		size = 16
	}
	buf := make([]waiter, size)
	for i := 0; i < r.n; i++ {
		buf[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = buf, 0
}
