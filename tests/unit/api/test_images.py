"""/images: the image proxy."""

from tests.unit.api import base


class TestImages(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.make_image(min_ram=64, properties={'os_distro': 'cirros'})
        self.make_image('6a2f2f5c-3b3d-4b4c-9a4e-1a2b3c4d5e6f', 'ubuntu')

    def test_list(self):
        images = self.request('GET', '/v2.1/images').json['images']
        self.assertEqual(['cirros', 'ubuntu'], [i['name'] for i in images])

    def test_name_filter(self):
        images = self.request('GET', '/v2.1/images/detail?name=ubuntu'
                              ).json['images']
        self.assertEqual(['ubuntu'], [i['name'] for i in images])

    def test_show_has_the_proxy_shape(self):
        image = self.request('GET', '/v2.1/images/' + base.IMAGE_UUID
                             ).json['image']
        self.assertEqual('ACTIVE', image['status'])
        self.assertEqual(100, image['progress'])
        self.assertEqual(64, image['minRam'])
        self.assertEqual({'os_distro': 'cirros'}, image['metadata'])
        self.assertTrue(image['created'].endswith('Z'))

    def test_show_bad_uuid_is_404(self):
        response = self.request('GET', '/v2.1/images/cirros')
        self.assertError(response, 404, 'itemNotFound')
