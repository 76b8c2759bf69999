// Module contour pins the real control plane TestContour runs krilint over. It only names the
// version: the test downloads that module and vets a scratch copy of it.
module github.com/kriguard/kriguard/test/integration/testdata/contour

go 1.26.0

require github.com/projectcontour/contour v1.33.8
