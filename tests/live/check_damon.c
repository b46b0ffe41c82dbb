/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_damon.c - the shared DAMON pause (src/util/damon.c) on a fake
 * kdamonds tree: runs that overlap, a run that died without leaving, a pid
 * used again, a registry that cannot be written.
 */
#include <config.h>

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/damon.h"

static char dir[] = "/tmp/check_damon.XXXXXX";
static char states[sizeof(dir) + 32], registry[sizeof(dir) + 32];
static char state0[sizeof(dir) + 32], state1[sizeof(dir) + 32];
static struct damon_paths paths;

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* The file's whole text (empty if it is missing). */
static const char *got(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static void setup(void)
{
	char sub[sizeof(dir) + 32];

	ck_assert_ptr_nonnull(mkdtemp(strcpy(dir, "/tmp/check_damon.XXXXXX")));
	snprintf(sub, sizeof(sub), "%s/0", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/1", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	snprintf(state0, sizeof(state0), "%s/0/state", dir);
	snprintf(state1, sizeof(state1), "%s/1/state", dir);
	snprintf(states, sizeof(states), "%s/*/state", dir);
	snprintf(registry, sizeof(registry), "%s/registry", dir);
	put(state0, "on\n");
	put(state1, "off\n");
	paths.states = states;
	paths.registry = registry;
}

static void teardown(void)
{
	unlink(state0);
	unlink(state1);
	unlink(registry);
	snprintf(state0, sizeof(state0), "%s/0", dir);
	snprintf(state1, sizeof(state1), "%s/1", dir);
	rmdir(state0);
	rmdir(state1);
	rmdir(dir);
}

/* A process that lives until killed: another run under way. */
static pid_t other_run(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static void end_run(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

START_TEST(one_run)
{
	char want[512];

	ck_assert_int_eq(damon_pause(&paths, getpid()), DAMON_PAUSED);
	ck_assert_str_eq(got(state0), "off");
	ck_assert_str_eq(got(state1), "off\n");	/* was off: not touched */
	/* "user PID START" then the context it switched off */
	snprintf(want, sizeof(want), "user %d ", (int)getpid());
	ck_assert_int_eq(strncmp(got(registry), want, strlen(want)), 0);
	snprintf(want, sizeof(want), "\npaused %s\n", state0);
	ck_assert_ptr_nonnull(strstr(got(registry), want));
	damon_resume(&paths, getpid());
	ck_assert_str_eq(got(state0), "on");
	ck_assert_str_eq(got(state1), "off\n");
	ck_assert_str_eq(got(registry), "");
}
END_TEST

/* The first in pauses; the second finds it off but paused; the last out
 * switches it on, whichever came first. */
START_TEST(overlapping_runs)
{
	pid_t other = other_run();

	ck_assert_int_eq(damon_pause(&paths, other), DAMON_PAUSED);
	ck_assert_int_eq(damon_pause(&paths, getpid()), DAMON_PAUSED);
	ck_assert_str_eq(got(state0), "off");
	damon_resume(&paths, other);
	ck_assert_str_eq(got(state0), "off");	/* this run is still under way */
	damon_resume(&paths, other);		/* twice: no effect */
	ck_assert_str_eq(got(state0), "off");
	damon_resume(&paths, getpid());
	ck_assert_str_eq(got(state0), "on");
	end_run(other);
}
END_TEST

/* A run killed outright never leaves: the next run drops it, and switches
 * on what it paused when that run leaves. */
START_TEST(dead_run_dropped)
{
	pid_t other = other_run();

	ck_assert_int_eq(damon_pause(&paths, other), DAMON_PAUSED);
	end_run(other);
	ck_assert_str_eq(got(state0), "off");
	ck_assert_int_eq(damon_pause(&paths, getpid()), DAMON_PAUSED);
	damon_resume(&paths, getpid());
	ck_assert_str_eq(got(state0), "on");
	ck_assert_str_eq(got(registry), "");
}
END_TEST

/* A registered pid whose start time differs is another process: dead. */
START_TEST(pid_used_again)
{
	char text[512];
	pid_t other = other_run();

	snprintf(text, sizeof(text), "user %d 1\npaused %s\n", (int)other, state0);
	put(registry, text);
	put(state0, "off");
	/* the stale entry leaves with the first run to go */
	ck_assert_int_eq(damon_pause(&paths, getpid()), DAMON_PAUSED);
	damon_resume(&paths, getpid());
	ck_assert_str_eq(got(state0), "on");
	end_run(other);
}
END_TEST

/* Not registered: resume does nothing. */
START_TEST(stranger_leaves)
{
	pid_t other = other_run();

	ck_assert_int_eq(damon_pause(&paths, getpid()), DAMON_PAUSED);
	damon_resume(&paths, other);
	ck_assert_str_eq(got(state0), "off");
	damon_resume(&paths, getpid());
	ck_assert_str_eq(got(state0), "on");
	end_run(other);
}
END_TEST

START_TEST(nothing_on)
{
	put(state0, "off\n");
	ck_assert_int_eq(damon_pause(&paths, getpid()), DAMON_NONE);
	damon_resume(&paths, getpid());
	ck_assert_str_eq(got(state0), "off\n");
	ck_assert_str_eq(got(registry), "");
}
END_TEST

/* No registry, no pause: DAMON left as it is, and the run told. */
START_TEST(registry_cannot_be_made)
{
	char missing[sizeof(dir) + 32];

	snprintf(missing, sizeof(missing), "%s/none/registry", dir);
	paths.registry = missing;
	ck_assert_int_eq(damon_pause(&paths, getpid()), DAMON_RUNNING);
	ck_assert_str_eq(got(state0), "on\n");
	damon_resume(&paths, getpid());
	ck_assert_str_eq(got(state0), "on\n");
	paths.registry = registry;
}
END_TEST

/* damon_resume_last() undoes this process's last pause, once. */
START_TEST(resume_last)
{
	ck_assert_int_eq(damon_pause(&paths, getpid()), DAMON_PAUSED);
	damon_resume_last();
	ck_assert_str_eq(got(state0), "on");
	put(state0, "off");
	damon_resume_last();
	ck_assert_str_eq(got(state0), "off");
}
END_TEST

/* A context that cannot be switched on stays listed for the next run out. */
START_TEST(cannot_switch_on)
{
	char text[512];

	snprintf(text, sizeof(text), "paused %s/0\n", dir);	/* a directory: no write */
	put(registry, text);
	ck_assert_int_eq(damon_pause(&paths, getpid()), DAMON_PAUSED);
	ck_assert_str_eq(got(state0), "off");
	damon_resume(&paths, getpid());
	ck_assert_str_eq(got(state0), "on");
	snprintf(text, sizeof(text), "paused %s/0\n", dir);
	ck_assert_str_eq(got(registry), text);
	unlink(registry);
}
END_TEST

/* Switched on meanwhile by something else: left as it is (in sysfs a
 * second "on" is EBUSY), and done: the file keeps the text put there. */
START_TEST(on_already)
{
	ck_assert_int_eq(damon_pause(&paths, getpid()), DAMON_PAUSED);
	put(state0, "on\n");
	damon_resume(&paths, getpid());
	ck_assert_str_eq(got(state0), "on\n");
	ck_assert_str_eq(got(registry), "");
}
END_TEST

START_TEST(bad_registry_lines)
{
	char text[512];

	snprintf(text, sizeof(text), "user x 1\nuser 0 5\npaused\nweird line\n\npaused %s\n",
		 state0);
	put(registry, text);
	put(state0, "off");
	ck_assert_int_eq(damon_pause(&paths, getpid()), DAMON_PAUSED);
	damon_resume(&paths, getpid());
	ck_assert_str_eq(got(state0), "on");
	ck_assert_str_eq(got(registry), "");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("damon");
	TCase *tc = tcase_create("shared pause");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, one_run);
	tcase_add_test(tc, overlapping_runs);
	tcase_add_test(tc, dead_run_dropped);
	tcase_add_test(tc, pid_used_again);
	tcase_add_test(tc, stranger_leaves);
	tcase_add_test(tc, nothing_on);
	tcase_add_test(tc, registry_cannot_be_made);
	tcase_add_test(tc, resume_last);
	tcase_add_test(tc, cannot_switch_on);
	tcase_add_test(tc, on_already);
	tcase_add_test(tc, bad_registry_lines);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
