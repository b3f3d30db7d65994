import NIOCore

/// A task executor that runs jobs on one NIO event loop: a task that prefers it
/// (`Task(executorPreference:)`) runs its nonisolated code on the loop's thread.
///
/// A job enqueued from the loop's own thread is queued behind what the loop is doing, without a
/// wake-up; from another thread, the loop is woken as for any `execute`. Package-visible so that the
/// bench's floor client runs its caller on its loop the same way (`floor-rtt --caller loop`).
package final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    package init(_ loop: any EventLoop) {
        self.loop = loop
    }

    /// Whether this executor's jobs run on `loop`.
    package func runs(on loop: any EventLoop) -> Bool { self.loop === loop }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
