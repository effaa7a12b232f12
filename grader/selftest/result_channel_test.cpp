// The result channel accepts only what the grader holding the key wrote, in the grader's order.
#include "result_reader.h"

#include "gpulab/result_channel.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace {

using gpulab::ChannelKey;
using nlohmann::json;

// A pipe with a reader on one end; lines are written to the other as a grader (or a forger) would.
struct Channel {
    ChannelKey key = gpulab::random_channel_key();
    int fds[2];
    std::unique_ptr<gpulab::runner::ResultReader> reader;
    std::uint64_t seq = 0;
    Channel() {
        EXPECT_EQ(::pipe(fds), 0);
        reader = std::make_unique<gpulab::runner::ResultReader>(fds[0], key, std::set<std::string>{"A.x", "A.y"});
    }
    ~Channel() { ::close(fds[1]); }
    void raw(const std::string& line) { ASSERT_EQ(::write(fds[1], line.data(), line.size()), ssize_t(line.size())); }
    void send(json event, const ChannelKey* with = nullptr) {
        event["seq"] = seq++;
        raw(gpulab::sign_event(with ? *with : key, event));
    }
    std::size_t accepted() { return reader->poll().size(); }
};

gpulab::runner::ExitStatus exited(int code) {
    gpulab::runner::ExitStatus s;
    s.exited = true;
    s.code = code;
    return s;
}

TEST(ResultChannel, AcceptsTheGradersOwnEvents) {
    Channel c;
    c.send({{"event", "device"}});
    c.send({{"event", "start"}, {"test", "A.x"}});
    c.send({{"event", "end"}, {"test", "A.x"}, {"result", "passed"}});
    c.send({{"event", "finished"}});
    EXPECT_EQ(c.accepted(), 4u);
    c.reader->finish(exited(0));
    EXPECT_FALSE(c.reader->tampered()) << c.reader->tampering();
}

TEST(ResultChannel, AcceptsATestStoppedAtItsLaunchDeadline) {
    // launch_deadline.h: the watchdog ends the running test as failed, then closes the process with "stopped".
    Channel c;
    c.send({{"event", "device"}});
    c.send({{"event", "start"}, {"test", "A.x"}});
    c.send({{"event", "end"}, {"test", "A.x"}, {"result", "failed"}});
    c.send({{"event", "stopped"}, {"test", "A.x"}});
    EXPECT_EQ(c.accepted(), 4u);
    c.reader->finish(exited(3));
    EXPECT_FALSE(c.reader->tampered()) << c.reader->tampering();
}

TEST(ResultChannel, RejectsAStopWhileATestRuns) {
    Channel c;
    c.send({{"event", "start"}, {"test", "A.x"}});
    c.send({{"event", "stopped"}, {"test", "A.x"}});
    c.accepted();
    EXPECT_TRUE(c.reader->tampered());
}

TEST(ResultChannel, RejectsAnUnsignedLine) {
    Channel c;
    c.send({{"event", "start"}, {"test", "A.x"}});
    c.raw(R"({"event":"end","test":"A.x","result":"passed","seq":1})" "\n");
    c.accepted();
    EXPECT_TRUE(c.reader->tampered());
    EXPECT_NE(c.reader->tampering().find("signature"), std::string::npos);
}

TEST(ResultChannel, RejectsALineSignedWithAnotherKey) {
    Channel c;
    const ChannelKey other = gpulab::random_channel_key();
    c.send({{"event", "start"}, {"test", "A.x"}}, &other);
    c.accepted();
    EXPECT_TRUE(c.reader->tampered());
}

TEST(ResultChannel, RejectsARepeatedEvent) {
    Channel c;
    c.send({{"event", "start"}, {"test", "A.x"}});
    c.seq = 0;  // the same number again, as a replayed line would carry
    c.send({{"event", "start"}, {"test", "A.x"}});
    c.accepted();
    EXPECT_TRUE(c.reader->tampered());
    EXPECT_NE(c.reader->tampering().find("repeated or out of order"), std::string::npos);
}

TEST(ResultChannel, RejectsAnEndWithoutItsStart) {
    Channel c;
    c.send({{"event", "end"}, {"test", "A.y"}, {"result", "passed"}});
    c.accepted();
    EXPECT_TRUE(c.reader->tampered());
}

TEST(ResultChannel, RejectsATestItWasNotAskedToRun) {
    Channel c;
    c.send({{"event", "start"}, {"test", "Speed.Anything"}});
    c.accepted();
    EXPECT_TRUE(c.reader->tampered());
}

TEST(ResultChannel, RejectsEventsAfterTheClosingOne) {
    Channel c;
    c.send({{"event", "finished"}});
    c.send({{"event", "start"}, {"test", "A.x"}});
    c.accepted();
    EXPECT_TRUE(c.reader->tampered());
}

TEST(ResultChannel, RejectsAProcessThatExitsWithoutTheClosingEvent) {
    Channel c;
    c.send({{"event", "device"}});
    c.send({{"event", "start"}, {"test", "A.x"}});
    c.accepted();
    c.reader->finish(exited(0));
    EXPECT_TRUE(c.reader->tampered());
    EXPECT_NE(c.reader->tampering().find("closing event"), std::string::npos);
}

TEST(ResultChannel, ACrashIsNoForgery) {
    Channel c;
    c.send({{"event", "device"}});
    c.send({{"event", "start"}, {"test", "A.x"}});
    c.raw("half a li");
    c.accepted();
    gpulab::runner::ExitStatus killed;
    killed.signal = SIGSEGV;
    c.reader->finish(killed);
    EXPECT_FALSE(c.reader->tampered()) << c.reader->tampering();
}

}  // namespace
