/* SPDX-License-Identifier: MIT */
/* Linked with one layer of the CLI whole and the layers below it (see
 * cli/meson.build): it builds only if the layer needs nothing above it. */
int
main(void)
{
	return 0;
}
