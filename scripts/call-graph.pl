#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
# call-graph.pl NAME OBJECT...: which source file of a component calls
# (or takes the address of) which other's functions and data, read from
# the compiled objects' symbol tables (nm: what each defines, what each
# leaves undefined), and whether those files call each other in a circle.
#
# Prints each file with the files it uses, then each circle (a strongly
# connected set of more than one file, Tarjan's algorithm) as a KTAP
# diagnostic; exits 1 if there is one.
use strict;
use warnings;

my ($name, @objs) = @ARGV;
die "usage: call-graph.pl NAME OBJECT...\n" unless @objs;

my (%defined_in, %uses);
for my $o (@objs) {
	(my $file = $o) =~ s{.*/}{};
	$file =~ s/\.o$//;
	open(my $nm, '-|', 'nm', $o) or die "call-graph.pl: nm $o: $!\n";
	my @undef;
	while (<$nm>) {
		if (/^\s+U (\S+)/) {
			push @undef, $1;
		} elsif (/^[0-9a-f]+ [TDBR] (\S+)/) {
			$defined_in{$1} = $file;
		}
	}
	close($nm) or die "call-graph.pl: nm $o failed\n";
	$uses{$file}{$_} = 1 for @undef;
}

# file => { file it uses => 1 }
my %edges;
for my $file (sort keys %uses) {
	$edges{$file} //= {};
	for my $sym (keys %{ $uses{$file} }) {
		my $to = $defined_in{$sym};
		$edges{$file}{$to} = 1 if defined $to && $to ne $file;
	}
}
for my $file (sort keys %edges) {
	print "# $name: $file -> ", join(' ', sort keys %{ $edges{$file} }) || '(nothing)', "\n";
}

# Tarjan's strongly connected components.
my ($index, @stack, %on, %idx, %low, @circles) = (0);
sub visit {
	my ($v) = @_;
	$idx{$v} = $low{$v} = $index++;
	push @stack, $v;
	$on{$v} = 1;
	for my $w (sort keys %{ $edges{$v} }) {
		if (!defined $idx{$w}) {
			visit($w);
			$low{$v} = $low{$w} if $low{$w} < $low{$v};
		} elsif ($on{$w}) {
			$low{$v} = $idx{$w} if $idx{$w} < $low{$v};
		}
	}
	return unless $low{$v} == $idx{$v};
	my @scc;
	while (1) {
		my $w = pop @stack;
		delete $on{$w};
		push @scc, $w;
		last if $w eq $v;
	}
	push @circles, [ sort @scc ] if @scc > 1;
}
for my $v (sort keys %edges) {
	visit($v) unless defined $idx{$v};
}
print "# $name: a circle of ", scalar(@$_), " files: @$_\n" for @circles;
exit(@circles ? 1 : 0);
