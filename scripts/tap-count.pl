#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
# tap-count.pl LAYER LOG FAILED: the tests of one layer of make check, as a
# TAP parser (Perl's TAP::Parser) reads them.
#
# LOG is what the layer printed.  A line "[G] ..." is guest G's (the VM
# runner prefixes each guest's lines), any other line the host's; each of
# these streams is a sequence of TAP documents, a new one at each
# "TAP version" line or at a second plan.  Every document must have a plan
# that its tests meet, no bail-out and no parse error; one that does not
# is a failed test of its own.  A test reported under the same name by
# several guests (both sides of a pair test) is one test: it fails if any
# side failed, is skipped if every side skipped, and passes otherwise.
# A test line without a name (Linux 6.1's kselftest harness prints a
# skipped test so) takes the name of the harness's "#  RUN" line before
# it.  A line "# RETRY NAME: REASON" says that test NAME was run again;
# each retried test counts once.
#
# Prints "PASSED FAILED SKIPPED RETRIED PAIRED" (PAIRED: tests that more
# than one guest reported); appends a line per failure to FAILED.
use strict;
use warnings;
use TAP::Parser;

my ($layer, $log, $failed_file) = @ARGV;
die "usage: tap-count.pl LAYER LOG FAILED\n" unless defined $failed_file;
open(my $in, '<', $log) or die "tap-count.pl: $log: $!\n";
open(my $failed, '>>', $failed_file) or die "tap-count.pl: $failed_file: $!\n";

# %docs: each stream's documents in the order they began; %open: the
# stack of its documents still being read (a document may hold another,
# as a guest script runs a kselftest between its own tests).
my (%docs, %open, @order, %retried);
sub new_doc {
	my ($stream) = @_;
	my $doc = { lines => [], plan => undef, tests => 0 };
	push @{ $docs{$stream} }, $doc;
	push @{ $open{$stream} }, $doc;
	return $doc;
}
while (my $line = <$in>) {
	$line =~ s/\r?\n$//;
	my $stream = 'host';
	$stream = $1 if $line =~ s/^\[(\d+)\] //;
	$retried{$1} = 1 if $line =~ /^# RETRY (\S+):/;
	unless ($docs{$stream}) {
		push @order, $stream;
		new_doc($stream);
	}
	my $doc = $open{$stream}[-1];
	if ($line =~ /^TAP version/ && @{ $doc->{lines} }) {
		# Inside a document that has not run its plan: one held in it.
		pop @{ $open{$stream} }
			unless defined $doc->{plan} && $doc->{tests} < $doc->{plan};
		$doc = new_doc($stream);
	} elsif ($line =~ /^1\.\.(\d+)/ && defined $doc->{plan}) {
		pop @{ $open{$stream} };
		$doc = new_doc($stream);
	}
	$doc->{plan} = $1 if $line =~ /^1\.\.(\d+)/;
	push @{ $doc->{lines} }, $line;
	$doc->{tests}++ if $line =~ /^(not )?ok\b/;
	# A held document that has run its plan gives way to its holder.
	pop @{ $open{$stream} }
		if @{ $open{$stream} } > 1 && defined $doc->{plan} &&
		   $doc->{tests} >= $doc->{plan};
}

# name => [ results ]; a name seen twice in one stream is a second test.
my (%results, @names);
for my $stream (@order) {
	my (%seen, $d);
	for my $doc (@{ $docs{$stream} }) {
		$d++;
		# A stream's lines before its first TAP are not a document.
		next unless grep { /^(not )?ok\b|^1\.\.\d+/ } @{ $doc->{lines} };
		my $parser = TAP::Parser->new({ tap => join("\n", @{ $doc->{lines} }) . "\n" });
		my (@problems, $run);
		while (my $r = $parser->next) {
			push @problems, 'bailed out: ' . $r->explanation
				if $r->is_bailout;
			# Linux 6.1's kselftest harness names a skipped test
			# only in its "#  RUN" line.
			$run = $1 if $r->is_comment && $r->comment =~ /^\s*RUN\s+(\S+)/;
			next unless $r->is_test;
			my $name = $r->description;
			$name =~ s/^-\s*//;
			$name = $run if $name eq '' && defined $run;
			undef $run;
			$name = "$stream: document $d test " . $r->number if $name eq '';
			my $key = $name . '#' . ++$seen{$name};
			push @names, $key unless $results{$key};
			my $res = !$r->is_ok ? 'fail' :
				  ($r->has_skip ? 'skip' : 'pass');
			push @{ $results{$key} }, [ $res, $stream, $r->as_string ];
		}
		push @problems, $parser->parse_errors;
		if (@problems) {
			my $where = $stream eq 'host' ? 'host' : "guest $stream";
			my $key = "$layer: $where: TAP document $d#1";
			push @names, $key;
			$results{$key} = [ [ 'fail', $stream,
				"not ok - $where, TAP document $d: " . join('; ', @problems) ] ];
		}
	}
}

my ($pass, $fail, $skip, $paired) = (0, 0, 0, 0);
for my $key (@names) {
	my @r = @{ $results{$key} };
	$paired++ if @r > 1;
	if (my @bad = grep { $_->[0] eq 'fail' } @r) {
		$fail++;
		for (@bad) {
			my $who = $_->[1] eq 'host' ? '' : "[$_->[1]] ";
			print $failed "$layer: $who$_->[2]\n";
		}
	} elsif (!grep { $_->[0] ne 'skip' } @r) {
		$skip++;
	} else {
		$pass++;
	}
}
print join(' ', $pass, $fail, $skip, scalar(keys %retried), $paired), "\n";
